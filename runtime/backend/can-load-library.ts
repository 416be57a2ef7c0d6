// Whether the dynamic loader can open a shared library by name (a driver, a CUDA runtime): the
// one test that answers it is to load it, which also keeps it loaded for whoever needs it next.
import koffi from 'koffi';

export function canLoadLibrary(name: string): boolean {
  try {
    koffi.load(name);
    return true;
  } catch {
    return false;
  }
}
