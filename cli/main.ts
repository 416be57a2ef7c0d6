// The `lmforge` command. Each subcommand lives in its own file and registers itself here.
import { cac } from 'cac';
import { registerServe } from './serve.js';
import { registerPull } from './pull.js';
import { registerCompileGrammar } from './compile-grammar.js';
import { registerCompile } from './compile.js';
import { registerBench } from './bench.js';
import { registerTrainHeads } from './train-heads.js';
import { registerBackend } from './backend.js';
import { reportCliError } from './cli-error.js';
import { joinDashValues, kebabCaseOptions, readValuesAsTyped, refuseRepeatedOptions, refuseSwitchValues, refuseUnreadArguments } from './option-values.js';
import { LMFORGE_VERSION } from '../runtime/version.js';

const cli = cac('lmforge');
registerServe(cli);
registerPull(cli);
registerCompile(cli);
registerCompileGrammar(cli);
registerBench(cli);
registerTrainHeads(cli);
registerBackend(cli);
// cac gives every --no-x option `(default: true)` (x is on by default), which reads as if the
// --no-x were: the help leaves it out.
cli.help((sections) => sections.map((section) => ({ ...section, body: section.body.replace(/^(\s+--no-\S+.*?) \(default: true\)$/gm, '$1') })));
cli.version(LMFORGE_VERSION);

try {
  // One spelling of each flag (cac takes camelCase too), for cac and for the checks that read process.argv.
  process.argv = kebabCaseOptions(process.argv);
  refuseUnreadArguments(process.argv);
  // Values that start with '-' joined to their flags, for cac and for the as-typed reads alike.
  process.argv = joinDashValues(cli, process.argv);
  cli.parse(process.argv, { run: false });
  // cac has printed the help; `lmforge nosuch --help` printed the general help, and is still a mistake.
  // With a command's arguments (`serve smollm2 --help`) cac leaves them in args and matches no command.
  const first = process.argv.slice(2).find((arg) => !arg.startsWith('-'));
  const named = cli.commands.some((command) => command.name === first);
  if (cli.options.help && (cli.matchedCommand || cli.args.length === 0 || named)) process.exit(0);
  if (cli.options.version) {
    // cac prints it only when no command matched (`serve --version` printed nothing).
    if (cli.matchedCommand || named) cli.outputVersion();
    process.exit(0);
  }
  if (!cli.matchedCommand) {
    if (cli.options.help) {
      console.error(`lmforge: unknown command '${cli.args[0]}' (the commands are listed above)`);
      process.exit(1);
    }
    cli.outputHelp();
    // An option with no command (`lmforge --foo`) is as much a mistake as an unknown command.
    const option = process.argv.slice(2).find((arg) => arg.startsWith('-'));
    if (cli.args.length > 0) console.error(`lmforge: unknown command '${cli.args[0]}' (the commands are listed above)`);
    else if (option !== undefined) console.error(`lmforge: ${option.split('=')[0]} is not an option of lmforge itself; the commands are listed above, each with its own options`);
    process.exit(cli.args.length > 0 || option !== undefined ? 1 : 0);
  }
  refuseSwitchValues(cli.matchedCommand, process.argv);
  readValuesAsTyped(cli.matchedCommand, cli.options, process.argv);
  refuseRepeatedOptions(cli.matchedCommand, cli.options);
  await cli.runMatchedCommand();
} catch (error) {
  reportCliError(error);
}
