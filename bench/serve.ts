// `npm run bench:serve -- --url URL [options]`: the `lmforge bench` command without the rest
// of the CLI (same options; see cli/bench.ts).
import { cac } from 'cac';
import { registerBench } from '../cli/bench.js';
import { reportCliError } from '../cli/cli-error.js';

const cli = cac('bench:serve');
registerBench(cli);
cli.help();
try {
  cli.parse([...process.argv.slice(0, 2), 'bench', ...process.argv.slice(2)], { run: false });
  await cli.runMatchedCommand();
} catch (error) {
  reportCliError(error);
}
