// Versioned binary artifact of a compiled grammar:
//   "LMFGRAMR" | u32 format version | u32 header length | header JSON | sections
// The header names the engine version, the grammar hash, the IR and each typed-array section
// (8-byte aligned, so a loader can take zero-copy views). Loading checks magic and version.
import { CompiledGrammar } from './compiled-grammar.js';
import { GrammarError } from './errors.js';
import type { GrammarFsm } from './fsm/grammar-fsm.js';
import type { Expr, GrammarIR } from './ir.js';

export const ARTIFACT_FORMAT_VERSION = 1;
const MAGIC = 'LMFGRAMR';
const ENGINE_VERSION = '0.1.0';

type ArrayKey = { [K in keyof GrammarFsm]: GrammarFsm[K] extends Int32Array | Uint8Array ? K : never }[keyof GrammarFsm];
const SECTIONS: ArrayKey[] = [
  'ruleStart', 'ruleNullable', 'stateRule', 'stateFinal', 'stateScan', 'edgeStart', 'edgeKind', 'edgeLo',
  'edgeHi', 'edgeAux', 'edgeTarget', 'repRule', 'repMin', 'repMax', 'repLoop', 'tokenSetStart', 'tokenIds',
  'ruleContext', 'ruleContextClosed',
];

interface Header {
  engine: string;
  hash: string;
  root: number;
  ruleNames: string[];
  ir: unknown;
  sections: { name: ArrayKey; type: 'i32' | 'u8'; offset: number; length: number }[];
}

const align8 = (n: number): number => (n + 7) & ~7;

export function serializeCompiledGrammar(compiled: CompiledGrammar): Uint8Array {
  const fsm = compiled.fsm;
  const sections: Header['sections'] = [];
  let offset = 0;
  for (const name of SECTIONS) {
    const arr = fsm[name];
    sections.push({ name, type: arr instanceof Int32Array ? 'i32' : 'u8', offset, length: arr.length });
    offset = align8(offset + arr.byteLength);
  }
  const header: Header = { engine: ENGINE_VERSION, hash: compiled.hash, root: fsm.root, ruleNames: fsm.ruleNames, ir: irToJson(compiled.ir), sections };
  const headerBytes = new TextEncoder().encode(JSON.stringify(header));
  const start = align8(16 + headerBytes.length);
  const out = new Uint8Array(start + offset);
  const view = new DataView(out.buffer);
  out.set(new TextEncoder().encode(MAGIC), 0);
  view.setUint32(8, ARTIFACT_FORMAT_VERSION, true);
  view.setUint32(12, headerBytes.length, true);
  out.set(headerBytes, 16);
  for (const s of sections) {
    const arr = fsm[s.name];
    out.set(new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength), start + s.offset);
  }
  return out;
}

export function deserializeCompiledGrammar(bytes: Uint8Array): CompiledGrammar {
  const bad = (why: string): GrammarError => new GrammarError(`not a usable grammar artifact: ${why}`);
  if (bytes.length < 16 || new TextDecoder().decode(bytes.subarray(0, 8)) !== MAGIC) throw bad('wrong magic');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(8, true);
  if (version !== ARTIFACT_FORMAT_VERSION) throw bad(`format version ${version}, expected ${ARTIFACT_FORMAT_VERSION}`);
  const headerLength = view.getUint32(12, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(16, 16 + headerLength))) as Header;
  const start = align8(16 + headerLength);
  // Copy into a fresh, aligned buffer once (a Buffer's slice would share a pooled one); the
  // section views into it are then zero-copy.
  const body = new Uint8Array(bytes.subarray(start));
  const fsm = { root: header.root, ruleNames: header.ruleNames } as GrammarFsm;
  for (const s of header.sections) {
    const arr = s.type === 'i32' ? new Int32Array(body.buffer, s.offset, s.length) : new Uint8Array(body.buffer, s.offset, s.length);
    (fsm as unknown as Record<string, unknown>)[s.name] = arr;
  }
  return new CompiledGrammar(irFromJson(header.ir), fsm, header.hash);
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
