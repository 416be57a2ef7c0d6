// How an option's value is read, where cac (through mri) reads it otherwise than a user means:
// a value that starts with `-` (`--drain-seconds -1`, `--regex -?\d+`) is taken for flags of its own; a flag
// given twice becomes a list whose joined text (`8631,8632`) the option's check rejects without
// saying why; a value is turned into a number where it looks like one (`0123`, `0x10`, an empty
// value as 0); a switch given a value (`--enable-tracing=false`) keeps the text, truthy; and cac
// takes every flag in camelCase too (`--apiKey`), which the checks that read the command line as
// typed did not see (a key given so served with no key).
import type { CAC, Command } from 'cac';
import { UsageError } from './cli-error.js';
import { rawOptionValues } from './raw-option.js';

/** Options that may be given more than once (their values accumulate), by command: serve takes several keys (bench sends one). */
const REPEATABLE: Readonly<Record<string, readonly string[]>> = { serve: ['apiKey'] };

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

/** `--apiKey` (or `--served-modelName`) as `--api-key`, before any `--`: one spelling for cac and for the checks that read the command line as typed. */
export function kebabCaseOptions(argv: readonly string[]): string[] {
  const end = argv.indexOf('--');
  return argv.map((arg, i) => {
    if ((end !== -1 && i >= end) || !/^--[^=]*[A-Z]/.test(arg)) return arg;
    const [name, ...value] = arg.split('=');
    return [`--${name!.slice(2).replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase()}`, ...value].join('=');
  });
}

/**
 * Throws for what the parser would read otherwise than typed: a dotted name (`--api-key.x KEY`
 * became a nested object, and the server ran with no key) and arguments after `--` (dropped:
 * `pull -- gemma3-270m` pulled the default model).
 */
export function refuseUnreadArguments(argv: readonly string[]): void {
  const end = argv.indexOf('--');
  const dotted = argv.slice(0, end === -1 ? argv.length : end).find((arg) => /^--[^=]*\./.test(arg));
  if (dotted !== undefined) throw new UsageError(`${dotted.split('=')[0]} is not an option: option names have no dots`);
  if (end !== -1 && end < argv.length - 1) throw new UsageError(`arguments after '--' are not read (${argv.slice(end + 1).join(' ')}): give them before it`);
}

/**
 * Sets each option the command line gives a value to, to that value as typed (a list when given
 * several times, which the repeat check names): the parser reads `0123` as 123, `0x10` as 16,
 * `1e3` as 1000 and an empty value as 0, so a key, a regex or a name would change and a number
 * would pass its check in a form nobody meant. Each command checks numbers with numberAsTyped.
 */
export function readValuesAsTyped(command: Command, parsed: Record<string, unknown>, argv: readonly string[]): void {
  for (const option of command.options.filter(takesValue)) {
    const typed = flagsOf(option).filter((flag) => flag.startsWith('--')).flatMap((flag) => rawOptionValues(argv, flag));
    if (typed.length === 0) continue;
    for (const name of option.names) parsed[name] = typed.length === 1 ? typed[0] : typed;
  }
}

/**
 * The number a value is as typed: digits, with a leading minus where `signed` and a decimal
 * fraction where `fraction`; NaN for any other text. A default is a number already.
 */
export function numberAsTyped(value: number | string, { signed = false, fraction = false } = {}): number {
  if (typeof value === 'number') return value;
  const pattern = new RegExp(`^${signed ? '-?' : ''}\\d+${fraction ? '(\\.\\d+)?' : ''}$`);
  return pattern.test(value.trim()) ? Number(value) : NaN;
}

/**
 * Throws for a switch given a value (`--enable-tracing=false`, `--any-order=no`, even `--x=`),
 * which kept the text (read as on), or given more than once in any of its forms (`--no-ui
 * --no-ui`, `--ui --no-ui`), which the parser folds into one value unsaid.
 */
export function refuseSwitchValues(command: Command, argv: readonly string[]): void {
  const given = argv.slice(0, argv.includes('--') ? argv.indexOf('--') : argv.length);
  for (const option of command.options.filter((o) => !takesValue(o))) {
    const spellings = new Set(flagsOf(option).filter((flag) => flag.startsWith('--')).flatMap((flag) => [flag, flag.replace(/^--no-/, '--'), flag.replace(/^--(?!no-)/, '--no-')]));
    const uses = given.filter((arg) => spellings.has(arg.split('=')[0]!));
    const valued = uses.find((arg) => arg.includes('='));
    if (valued !== undefined) {
      const [flag, ...value] = valued.split('=');
      throw new UsageError(`${flag} is a switch and takes no value (got '${value.join('=')}'): give it alone, or leave it out`);
    }
    if (uses.length > 1) throw new UsageError(`${flagsOf(option).at(-1)} is given ${uses.length} times (${uses.join(' ')}); give it once`);
  }
}

/** Whether the option must have a value (`--port <port>`; `--out [dir]` may go without). */
function needsValue(option: Option): boolean {
  return option.rawName.includes('<');
}

/**
 * `--flag VALUE` as `--flag=VALUE` where VALUE starts with `-` and is no flag of the command
 * (`--drain-seconds -1`, `--regex -?\d+`, `--api-key -abc`), so the option's own check sees
 * it: the parser took it for flags of its own (`Unknown option -?`). A flag that needs a value
 * and has none (`--regex` last, or before another flag) is refused by name: the parser read it
 * as empty text, and an empty regex compiled.
 */
export function joinDashValues(cli: CAC, argv: readonly string[]): string[] {
  const command = commandOf(cli, argv);
  const options = [...command.options, ...(command === cli.globalCommand ? [] : cli.globalCommand.options)];
  const flags = new Set(options.flatMap(flagsOf).flatMap((flag) => [flag, flag.replace(/^--no-/, '--'), flag.replace(/^--(?!no-)/, '--no-')]));
  const valued = new Set(command.options.filter(needsValue).flatMap(flagsOf));
  const isFlag = (arg: string) => flags.has(arg.split('=')[0]!);
  const joined: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      joined.push(...argv.slice(i));
      break;
    }
    if (!valued.has(arg)) {
      joined.push(arg);
      continue;
    }
    const next = argv[i + 1];
    if (next === undefined || isFlag(next)) throw new UsageError(`${arg} needs a value${next === undefined ? '' : ` (${next} is a flag of its own; a value spelt like a flag goes as ${arg}=VALUE)`}`);
    if (next.startsWith('-')) {
      joined.push(`${arg}=${next}`);
      i++;
    } else {
      joined.push(arg);
    }
  }
  return joined;
}

/** Throws for an option that takes one value given several times (a switch's repeats are refuseSwitchValues'). */
export function refuseRepeatedOptions(command: Command, parsed: Record<string, unknown>): void {
  for (const option of command.options.filter(takesValue)) {
    const name = option.names.find((n) => n in parsed);
    if (name === undefined || REPEATABLE[command.name]?.includes(name) || !Array.isArray(parsed[name])) continue;
    throw new UsageError(`${flagsOf(option).at(-1) ?? name} is given ${(parsed[name] as unknown[]).length} times; give it once`);
  }
}
