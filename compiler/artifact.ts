// Versioned binary artifact of a compiled grammar:
//   "LMFGRAMR" | u32 format version | u32 header length | header JSON | sections
// The header names the engine version, the grammar hash, the vocabulary fingerprint (when the
// artifact carries token masks), the IR and each typed-array section (8-byte aligned, so a
// loader takes zero-copy views). Loading checks magic, version and vocabulary.
import { CompiledGrammar } from './compiled-grammar.js';
import { GrammarError } from './errors.js';
import { sha256Hex } from './sha256.js';
import type { GrammarFsm } from './fsm/grammar-fsm.js';
import type { Expr, GrammarIR } from './ir.js';
import type { RuleMaskCache } from './mask/mask-cache.js';
import type { TokenMask } from './mask/token-mask.js';
import type { TokenizerInfo } from './tokenizer/tokenizer-info.js';

/** Bumped when the layout changes, and when the same input compiles to another language, since
 * caches keyed by the input and this version (the server's spec cache) would serve stale
 * artifacts: 3 bounds JSON whitespace, ends JSON with its value and drops empty parts; 4 adds
 * automaton leaves to the IR (multipleOf, key regions, strings under several constraints) and
 * changes the language of the time and date-time formats; 5 writes JSON as the value alone
 * (no leading whitespace) with runs of one space or a line break and its indentation, opens
 * bare object schemas in structural tags and adds the XML styles' raw strings; 6 minimises
 * rule automata correctly (5 could refuse values at a length bound, ["x-1234567890"] under a
 * pattern and maxLength 12) and inlines automaton leaves again; 7 bounds the digit runs of
 * JSON numbers that no bound fixes (numbers.ts MAX_FREE_DIGITS); 8 factors long choices of
 * literals into tries (the same language, but a long enum cached by 7 costs seconds per mask);
 * 9 intersects a const with the enum beside it (8 let the const through alone) and refuses a
 * structural tag that asks for an end-of-generation token as output (8 compiled it, and the
 * output ended there); 10 counts a long string's maximum in the matcher (three FSM sections);
 * 11 bounds each component of the duration format to 9 digits (10 let a model write digits
 * until max_tokens); 12 compiles uniqueItems over free strings and numbers to a rule the
 * matcher guards (ir.ts Rule.uniqueItems; 11 refused it). */
export const ARTIFACT_FORMAT_VERSION = 12;
const MAGIC = 'LMFGRAMR';
const ENGINE_VERSION = '0.1.0';

type ArrayKey = { [K in keyof GrammarFsm]: GrammarFsm[K] extends Int32Array | Uint8Array ? K : never }[keyof GrammarFsm];
const FSM_SECTIONS: ArrayKey[] = [
  'ruleStart', 'ruleNullable', 'stateRule', 'stateFinal', 'stateScan', 'edgeStart', 'edgeKind', 'edgeLo',
  'edgeHi', 'edgeAux', 'edgeTarget', 'repRule', 'repMin', 'repMax', 'repLoop', 'tokenSetStart', 'tokenIds',
  'ruleContext', 'ruleContextClosed', 'ruleUnitMax', 'stateUnitEnd', 'stateUnitsLeft',
];
// Token masks, one entry per state that has one: store kind, and CSR slices of ids, bitset
// words and uncertain positions.
const MASK_SECTIONS = ['maskState', 'maskStore', 'maskFlags', 'maskIdStart', 'maskIds', 'maskBitStart', 'maskBits', 'maskUncStart', 'maskUnc'] as const;
type MaskKey = (typeof MASK_SECTIONS)[number];

type Section = { name: string; type: 'i32' | 'u8' | 'u32'; offset: number; length: number };

interface Header {
  engine: string;
  hash: string;
  /** Fingerprint of the vocabulary the masks are for; absent without masks. */
  vocab?: string;
  root: number;
  ruleNames: string[];
  ir: unknown;
  sections: Section[];
  /** The body's length: a copy cut inside its last padding is cut short too (absent in artifacts of lmforge before 2026-11-29). */
  bodyBytes?: number;
  /** The body's SHA-256: a damaged byte in the tables would otherwise steer decoding wrong, silently (absent before 2026-11-29). */
  bodySha256?: string;
}

const align8 = (n: number): number => (n + 7) & ~7;

/** The artifact; with `withMasks` (default) every token mask computed so far goes in too (but
 * those taken from a state alike, mask-aliases.ts, which follow again from it). */
export function serializeCompiledGrammar(compiled: CompiledGrammar, options: { withMasks?: boolean } = {}): Uint8Array {
  const fsm = compiled.fsm;
  const arrays: [string, Int32Array | Uint8Array | Uint32Array][] = FSM_SECTIONS.map((name) => [name, fsm[name]]);
  const cache = options.withMasks === false ? null : compiled.masks;
  if (cache) for (const [name, arr] of Object.entries(packMasks(compiled))) arrays.push([name, arr]);
  const sections: Section[] = [];
  let offset = 0;
  for (const [name, arr] of arrays) {
    sections.push({ name, type: arr instanceof Int32Array ? 'i32' : arr instanceof Uint32Array ? 'u32' : 'u8', offset, length: arr.length });
    offset = align8(offset + arr.byteLength);
  }
  const body = new Uint8Array(offset);
  arrays.forEach(([, arr], i) => body.set(new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength), sections[i]!.offset));
  const header: Header = { engine: ENGINE_VERSION, hash: compiled.hash, root: fsm.root, ruleNames: fsm.ruleNames, ir: irToJson(compiled.ir), sections, bodyBytes: offset, bodySha256: sha256Hex(body) };
  if (cache) header.vocab = cache.tokenizer.fingerprint;
  const headerBytes = new TextEncoder().encode(JSON.stringify(header));
  const start = align8(16 + headerBytes.length);
  const out = new Uint8Array(start + offset);
  const view = new DataView(out.buffer);
  out.set(new TextEncoder().encode(MAGIC), 0);
  view.setUint32(8, ARTIFACT_FORMAT_VERSION, true);
  view.setUint32(12, headerBytes.length, true);
  out.set(headerBytes, 16);
  out.set(body, start);
  return out;
}

/** The vocabulary fingerprint an artifact's masks are for, or null (no masks). */
export function artifactVocabulary(bytes: Uint8Array): string | null {
  return readHeader(bytes).header.vocab ?? null;
}

/**
 * Loads an artifact. With a vocabulary the grammar gets its token masks: those in the artifact
 * (whose fingerprint must match), the rest computed on first use.
 */
export function deserializeCompiledGrammar(bytes: Uint8Array, tokenizer: TokenizerInfo | null = null, ruleMasks: RuleMaskCache | null = null): CompiledGrammar {
  const { header, start } = readHeader(bytes);
  // The shape only: bytes read from storage are hashed where they are read (artifactProblem),
  // not again at every hand-over in memory (compile workers, the engine), ~10 ms a MB.
  const cut = shapeProblem(header, bytes.length - start);
  if (cut) throw new GrammarError(`not a usable grammar artifact: ${cut}`);
  if (header.vocab !== undefined && tokenizer && header.vocab !== tokenizer.fingerprint) {
    throw new GrammarError(`not a usable grammar artifact: its token masks are for another vocabulary (${header.vocab.slice(0, 12)}, not ${tokenizer.fingerprint.slice(0, 12)})`);
  }
  // Copy into a fresh, aligned buffer once (a Buffer's slice would share a pooled one); the
  // section views into it are then zero-copy.
  const body = new Uint8Array(bytes.subarray(start));
  const fsm = { root: header.root, ruleNames: header.ruleNames } as GrammarFsm;
  const masks: Partial<Record<MaskKey, Int32Array | Uint8Array | Uint32Array>> = {};
  for (const s of header.sections) {
    const arr = s.type === 'i32' ? new Int32Array(body.buffer, s.offset, s.length) : s.type === 'u32' ? new Uint32Array(body.buffer, s.offset, s.length) : new Uint8Array(body.buffer, s.offset, s.length);
    if ((MASK_SECTIONS as readonly string[]).includes(s.name)) masks[s.name as MaskKey] = arr;
    else (fsm as unknown as Record<string, unknown>)[s.name] = arr;
  }
  const compiled = new CompiledGrammar(irFromJson(header.ir), fsm, header.hash, tokenizer, ruleMasks);
  if (tokenizer && header.vocab !== undefined) unpackMasks(compiled, masks);
  return compiled;
}

/** Why bytes read from storage are not a whole, undamaged artifact (wrong magic or version, cut short, tables whose SHA-256 differs), or undefined. */
export function artifactProblem(bytes: Uint8Array): string | undefined {
  try {
    const { header, start } = readHeader(bytes);
    return bodyProblem(header, bytes.subarray(start));
  } catch (error) {
    return (error as Error).message.replace(/^not a usable grammar artifact: /, '');
  }
}

const ELEMENT_BYTES: Record<Section['type'], number> = { i32: 4, u32: 4, u8: 1 };

/** What is wrong with the body the header describes: cut short, longer, a section beyond its end, or bytes changed. */
function bodyProblem(header: Header, body: Uint8Array): string | undefined {
  const cut = shapeProblem(header, body.length);
  if (cut) return cut;
  if (header.bodySha256 !== undefined && sha256Hex(body) !== header.bodySha256) return 'its tables are damaged (their SHA-256 is not the one recorded)';
  return undefined;
}

/** A body of another length than its header says, or too short for a section: an artifact cut short (a copy that stopped, a full disk). */
function shapeProblem(header: Header, bodyLength: number): string | undefined {
  if (!Array.isArray(header.sections)) return 'its header lists no sections';
  if (header.bodyBytes !== undefined && bodyLength < header.bodyBytes) return `it is cut short: its body has ${bodyLength} of ${header.bodyBytes} bytes`;
  if (header.bodyBytes !== undefined && bodyLength > header.bodyBytes) return `it has ${bodyLength - header.bodyBytes} bytes more than its header says`;
  for (const s of header.sections) {
    const end = s.offset + s.length * (ELEMENT_BYTES[s.type] ?? Infinity);
    if (!(Number.isSafeInteger(end) && end <= bodyLength && s.offset % 4 === 0)) return `it is cut short: section '${s.name}' ends at byte ${end} of a body of ${bodyLength}`;
  }
  return undefined;
}

function readHeader(bytes: Uint8Array): { header: Header; start: number } {
  const bad = (why: string): GrammarError => new GrammarError(`not a usable grammar artifact: ${why}`);
  if (bytes.length < 16 || new TextDecoder().decode(bytes.subarray(0, 8)) !== MAGIC) throw bad('wrong magic');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(8, true);
  if (version !== ARTIFACT_FORMAT_VERSION) throw bad(`format version ${version}, expected ${ARTIFACT_FORMAT_VERSION}`);
  const headerLength = view.getUint32(12, true);
  if (16 + headerLength > bytes.length) throw bad(`it is cut short: its header needs ${16 + headerLength} bytes, it has ${bytes.length}`);
  try {
    return { header: JSON.parse(new TextDecoder().decode(bytes.subarray(16, 16 + headerLength))) as Header, start: align8(16 + headerLength) };
  } catch (error) {
    throw bad(`its header is not JSON (${(error as Error).message})`);
  }
}

function packMasks(compiled: CompiledGrammar): Record<MaskKey, Int32Array | Uint8Array | Uint32Array> {
  const cache = compiled.masks!;
  const states: number[] = [];
  const list: TokenMask[] = [];
  for (let s = 0; s < compiled.numStates; s++) {
    if (cache.hasOwn(s)) {
      states.push(s);
      list.push(cache.get(s));
    }
  }
  const n = list.length;
  const csr = (get: (m: TokenMask) => ArrayLike<number> | null, make: (len: number) => Int32Array | Uint32Array) => {
    const starts = new Int32Array(n + 1);
    list.forEach((m, i) => (starts[i + 1] = starts[i]! + (get(m)?.length ?? 0)));
    const data = make(starts[n]!);
    list.forEach((m, i) => {
      const part = get(m);
      if (part) data.set(part as ArrayLike<number>, starts[i]!);
    });
    return [starts, data] as const;
  };
  const [maskIdStart, maskIds] = csr((m) => m.ids, (len) => new Int32Array(len));
  const [maskBitStart, maskBits] = csr((m) => m.bits, (len) => new Uint32Array(len));
  const [maskUncStart, maskUnc] = csr((m) => m.uncertain, (len) => new Int32Array(len));
  return {
    maskState: Int32Array.from(states),
    maskStore: Uint8Array.from(list.map((m) => m.store)),
    maskFlags: Uint8Array.from(list.map((m) => (m.contextFree ? 1 : 0))),
    maskIdStart, maskIds, maskBitStart, maskBits, maskUncStart, maskUnc,
  };
}

function unpackMasks(compiled: CompiledGrammar, m: Partial<Record<MaskKey, Int32Array | Uint8Array | Uint32Array>>): void {
  const states = m.maskState as Int32Array;
  const idStart = m.maskIdStart as Int32Array;
  const bitStart = m.maskBitStart as Int32Array;
  const uncStart = m.maskUncStart as Int32Array;
  for (let i = 0; i < states.length; i++) {
    const hasBits = bitStart[i + 1]! > bitStart[i]!;
    compiled.masks!.set(states[i]!, {
      store: m.maskStore![i]!,
      ids: (m.maskIds as Int32Array).subarray(idStart[i]!, idStart[i + 1]!),
      bits: hasBits ? (m.maskBits as Uint32Array).subarray(bitStart[i]!, bitStart[i + 1]!) : null,
      uncertain: (m.maskUnc as Int32Array).subarray(uncStart[i]!, uncStart[i + 1]!),
      contextFree: m.maskFlags![i] === 1,
    });
  }
}

function irToJson(ir: GrammarIR): unknown {
  return JSON.parse(JSON.stringify(ir, (_k, v: unknown) => (v instanceof Uint8Array ? { $bytes: Array.from(v) } : v)));
}

function irFromJson(json: unknown): GrammarIR {
  const revive = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(revive);
    if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (Array.isArray(o.$bytes)) return new Uint8Array(o.$bytes as number[]);
      return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, revive(x)]));
    }
    return v;
  };
  return revive(json) as GrammarIR & { rules: { body: Expr }[] };
}
