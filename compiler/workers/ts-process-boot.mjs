// Starts a TypeScript child process when lmforge runs from source: tsx's loader is registered
// here, then the .ts named by the first argument loads (the child is forked without the
// parent's flags, so it does not depend on how the parent was started).
import { register } from 'tsx/esm/api';

register();
await import(process.argv[2]);
