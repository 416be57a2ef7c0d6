// `lmforge pull [NAME]`: fetches a known model (smollm2, the default, or gemma3-270m) into
// $LMFORGE_HOME/models.
// Progress goes to stderr; the model file's path is the last line on stdout, for scripts:
//   MODEL=$(lmforge pull | tail -n 1)
import type { CAC } from 'cac';
import { DEFAULT_MODEL, knownModels } from '../runtime/models/known-models.js';
import { pullModel } from '../runtime/models/pull-model.js';

export function registerPull(cli: CAC): void {
  cli
    .command('pull [name]', `Download a known model into the local cache: ${knownModels.map((m) => m.name).join(' or ')} (default: ${DEFAULT_MODEL})`)
    .usage(`pull [name]   (${knownModels.map((m) => m.name).join(' or ')}; default: ${DEFAULT_MODEL})`)
    .option('--force', 'Download again even if a verified copy is cached')
    .action(async (name: string | undefined, flags: { force?: boolean }) => {
      const path = await pullModel(name ?? DEFAULT_MODEL, { force: flags.force === true });
      console.log(path);
    });
}
