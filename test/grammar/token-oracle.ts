// The brute-force oracle for token masks (GRAMMAR.md section 7, case 33): a token is allowed
// exactly when accepting it on a copy of the matcher succeeds. Shared by the mask suites.
import { GrammarMatcher } from '../../compiler/index.js';
import type { TokenizerInfo } from '../../compiler/tokenizer/tokenizer-info.js';

export function maskWords(info: TokenizerInfo): Uint32Array {
  return new Uint32Array(Math.ceil(info.vocabSize / 32));
}

export function has(mask: Uint32Array, id: number): boolean {
  return (mask[id >>> 5]! & (1 << (id & 31))) !== 0;
}

/** Every token tried on one fork (accept, then roll back). */
export function bruteForceMask(m: GrammarMatcher, info: TokenizerInfo): Uint32Array {
  const fork = m.fork();
  const mask = maskWords(info);
  for (let id = 0; id < info.vocabSize; id++) {
    if (fork.acceptToken(id)) {
      mask[id >>> 5]! |= 1 << (id & 31);
      fork.rollback(1);
    }
  }
  return mask;
}

export function fastMask(m: GrammarMatcher, info: TokenizerInfo): Uint32Array {
  const mask = maskWords(info);
  m.fillNextTokenBitmask(mask);
  return mask;
}

/** Ids where the two masks differ, at most `limit`, with what the fast mask said. */
export function differences(fast: Uint32Array, brute: Uint32Array, limit = 10): { id: number; fast: boolean }[] {
  const out: { id: number; fast: boolean }[] = [];
  for (let w = 0; w < fast.length && out.length < limit; w++) {
    let x = fast[w]! ^ brute[w]!;
    while (x !== 0 && out.length < limit) {
      const bit = 31 - Math.clz32(x & -x);
      out.push({ id: w * 32 + bit, fast: (fast[w]! & (1 << bit)) !== 0 });
      x &= x - 1;
    }
  }
  return out;
}

export function describe(info: TokenizerInfo, diffs: { id: number; fast: boolean }[]): string {
  return diffs.map((d) => `${d.id} ${JSON.stringify(Buffer.from(info.tokenBytes(d.id)).toString('latin1'))} fast=${d.fast}`).join('; ');
}

/** Ids set in a mask. */
export function allowedIds(mask: Uint32Array): number[] {
  const out: number[] = [];
  for (let w = 0; w < mask.length; w++) {
    let x = mask[w]!;
    while (x !== 0) {
      out.push(w * 32 + (31 - Math.clz32(x & -x)));
      x &= x - 1;
    }
  }
  return out;
}
