// How an option's value is read, where cac (through mri) reads it otherwise than a user means:
// a negative number after a space (`--drain-seconds -1`) is taken for a flag of its own; a flag
// given twice becomes a list whose joined text (`8631,8632`) the option's check rejects without
// saying why; a switch given a value (`--enable-tracing=false`) keeps the text, truthy; and cac
// takes every flag in camelCase too (`--apiKey`), which the checks that read the command line as
// typed did not see (a key given so served with no key).
import type { CAC, Command } from 'cac';
import { UsageError } from './cli-error.js';

/** Options that may be given more than once (their values accumulate). */
const REPEATABLE = new Set(['apiKey']);

/** The command the arguments name (the first that is not an option), else the global one. */
function commandOf(cli: CAC, argv: readonly string[]): Command {
  const name = argv.slice(2).find((arg) => !arg.startsWith('-'));
  return cli.commands.find((command) => command.name === name) ?? cli.globalCommand;
}

type Option = Command['options'][number];

/** Whether the option takes a value (`--port <port>`, `--out [dir]`). */
function takesValue(option: Option): boolean {
  return /[<[]/.test(option.rawName);
}

/** The option's flags as typed (`--max-batch-size`, `-p`); cac's names are camelCase. */
function flagsOf(option: Option): string[] {
  return option.rawName.replace(/[<[].*$/, '').match(/--?[\w-]+/g) ?? [];
}

/** `--apiKey` as `--api-key`, before any `--`: one spelling for cac and for the checks that read the command line as typed. */
export function kebabCaseOptions(argv: readonly string[]): string[] {
  const end = argv.indexOf('--');
  return argv.map((arg, i) => {
    if ((end !== -1 && i >= end) || !/^--[a-z][A-Za-z0-9]*[A-Z]/.test(arg)) return arg;
    const [name, ...value] = arg.split('=');
    return [name!.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`), ...value].join('=');
  });
}

/** Throws for a switch given a value (`--enable-tracing=false`, `--any-order=no`, even `--x=`): it would keep the text, which reads as on. */
export function refuseSwitchValues(command: Command, argv: readonly string[]): void {
  const switches = new Set(command.options.filter((option) => !takesValue(option)).flatMap(flagsOf).flatMap((flag) => [flag, flag.replace(/^--no-/, '--')]));
  for (const arg of argv.slice(0, argv.includes('--') ? argv.indexOf('--') : argv.length)) {
    const [flag, ...value] = arg.split('=');
    if (value.length > 0 && switches.has(flag!)) throw new UsageError(`${flag} is a switch and takes no value (got '${value.join('=')}'): give it alone, or leave it out`);
  }
}

/** `--flag -3` as `--flag=-3` for the command's options that take a value, so the option's own check sees -3. */
export function joinNegativeValues(cli: CAC, argv: readonly string[]): string[] {
  const flags = new Set(commandOf(cli, argv).options.filter(takesValue).flatMap(flagsOf));
  const joined: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      joined.push(...argv.slice(i));
      break;
    }
    const next = argv[i + 1];
    if (flags.has(arg) && next !== undefined && /^-\d/.test(next)) {
      joined.push(`${arg}=${next}`);
      i++;
    } else {
      joined.push(arg);
    }
  }
  return joined;
}

/** Throws for an option that takes one value, or a switch, given several times (a switch's list read as off). */
export function refuseRepeatedOptions(command: Command, parsed: Record<string, unknown>): void {
  for (const option of command.options) {
    const name = option.names.find((n) => n in parsed);
    if (name === undefined || REPEATABLE.has(name) || !Array.isArray(parsed[name])) continue;
    throw new UsageError(`${flagsOf(option).at(-1) ?? name} is given ${(parsed[name] as unknown[]).length} times; give it once`);
  }
}
