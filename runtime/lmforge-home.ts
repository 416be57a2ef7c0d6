// Where lmforge keeps user data: $LMFORGE_HOME, by default ~/.cache/lmforge.
import { homedir } from 'node:os';
import { join } from 'node:path';

export function lmforgeHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.LMFORGE_HOME || join(homedir(), '.cache', 'lmforge');
}

/** The model cache that `lmforge pull` fills and model names are looked up in last. */
export function modelsDir(home: string = lmforgeHome()): string {
  return join(home, 'models');
}
