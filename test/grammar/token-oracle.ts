// The brute-force oracle for token masks (GRAMMAR.md section 7, case 33): a token is allowed
// exactly when accepting it on a copy of the matcher succeeds. Shared by the mask suites.
import * as assert from 'uvu/assert';
import { type CompiledGrammar, type Grammar, GrammarCompiler, GrammarMatcher } from '../../compiler/index.js';
import { greedyTokens } from '../../fixtures/grammar-inputs.js';
import { TOKEN_STOP, type TokenizerInfo } from '../../compiler/tokenizer/tokenizer-info.js';

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

/** Tokens worth checking at a step: allowed ones, and refused ones that look close to them. */
function claimSample(info: TokenizerInfo, mask: Uint32Array, rand: () => number, n: number): number[] {
  const allowed = allowedIds(mask);
  const out: number[] = [];
  for (let i = 0; i < n && allowed.length > 0; i++) out.push(allowed[Math.floor(rand() * allowed.length)]!);
  for (let i = 0; i < n && allowed.length > 0; i++) {
    // A neighbour in byte order of an allowed token: shares a prefix, often refused.
    const a = allowed[Math.floor(rand() * allowed.length)]!;
    const j = info.sortedIndex[a]!;
    if (j < 0) continue;
    const k = Math.min(info.sorted.length - 1, Math.max(0, j + Math.floor(rand() * 64) - 32));
    out.push(info.sorted[k]!);
  }
  for (let i = 0; i < n; i++) out.push(Math.floor(rand() * info.vocabSize));
  return out;
}

/** Checks the fast mask at one step: against brute force, or claim by claim (every token in
 * `short`, and a sample biased towards the allowed ones and their neighbours). */
export function checkStep(m: GrammarMatcher, info: TokenizerInfo, short: number[], brute: boolean, rand: () => number, where: string): Uint32Array {
  const fast = fastMask(m, info);
  if (brute) {
    const diffs = differences(fast, bruteForceMask(m, info));
    assert.equal(diffs.length, 0, `${where}: ${describe(info, diffs)}`);
    return fast;
  }
  const fork = m.fork();
  for (const id of [...short, ...claimSample(info, fast, rand, 40)]) {
    const ok = fork.acceptToken(id);
    if (ok) fork.rollback(1);
    assert.equal(ok, has(fast, id), `${where}: token ${describe(info, [{ id, fast: has(fast, id) }])}`);
  }
  return fast;
}

/** Tokens of at most two bytes: where rule boundaries fall (`,`, `"}`, ...), checked at every step. */
export function shortTokens(info: TokenizerInfo): number[] {
  return [...info.sorted].filter((t) => info.tokenLength(t) <= 2);
}

const STEPS = 24;
const BRUTE_AT = new Set([0, 7, 23]);
const BRUTE_ALONG_OUTPUT = 3;

/**
 * Walks a compiled grammar along a valid output (if given) and along a random walk, checking
 * the fast mask at every step: against brute force at a few, claim by claim at the others.
 */
export function checkWalks(compiled: CompiledGrammar, info: TokenizerInfo, short: number[], name: string, output: string | undefined, rand: () => number): void {
  if (output !== undefined) {
    const m = new GrammarMatcher(compiled);
    const tokens = greedyTokens(info, output);
    const bruteAt = new Set(Array.from({ length: BRUTE_ALONG_OUTPUT }, () => Math.floor(rand() * tokens.length)));
    // The last step: tokens there run past the ends of the innermost rules up to the root's.
    bruteAt.add(tokens.length - 1);
    tokens.forEach((id, step) => {
      checkStep(m, info, short, bruteAt.has(step), rand, `${name}, output step ${step}`);
      assert.ok(m.acceptToken(id), `${name}: the valid output's token ${step} was refused`);
    });
    assert.ok(m.isCompleted(), `${name}: the valid output is complete`);
  }
  const m = new GrammarMatcher(compiled);
  for (let step = 0; step < STEPS; step++) {
    const fast = checkStep(m, info, short, BRUTE_AT.has(step), rand, `${name}, step ${step}`);
    const allowed = allowedIds(fast).filter((id) => info.kind[id] !== TOKEN_STOP);
    if (allowed.length === 0) break;
    // Prefer longer tokens now and then, so walks get somewhere.
    let id = allowed[Math.floor(rand() * allowed.length)]!;
    for (let tries = 0; tries < 3 && info.tokenLength(id) < 2; tries++) id = allowed[Math.floor(rand() * allowed.length)]!;
    assert.ok(m.acceptToken(id), `${name}: an allowed token was refused`);
  }
}

/** After each prefix, the eagerly compiled grammar's mask (every state's computed up front) equals brute force. */
export function assertEagerMasksAfter(info: TokenizerInfo, grammar: Grammar, prefixes: string[], name: string): void {
  const compiled = new GrammarCompiler(info, { cache: false }).compile(grammar, { eager: true });
  for (const prefix of prefixes) {
    const m = new GrammarMatcher(compiled);
    assert.ok(m.acceptString(prefix), `${name}: ${JSON.stringify(prefix)} is a valid prefix`);
    const diffs = differences(fastMask(m, info), bruteForceMask(m, info));
    assert.equal(diffs.length, 0, `${name} after ${JSON.stringify(prefix)}: ${describe(info, diffs)}`);
  }
}
