// Greedy argmax over a logits row in WebAssembly SIMD: four floats per instruction where V8's
// JavaScript compares one at a time. The row is copied into the module's memory first (a
// memcpy; wasm cannot read llama.cpp's buffer in place), and still the pair costs about a third
// of the four-lane JavaScript loop (argmax.ts) on a 50,257-token row. bench:host: the engine's
// greedy `sample` phase, 64 rows a step, is most of its JavaScript.
//
// The module, as text (encoded below by hand: the project builds no wasm toolchain):
//   (memory (export "memory") 1)
//   (func (export "argmax") (param $n i32) (result i32)   ;; floats at address 0
//     ;; 1. the maximum: four f32x4 running maxima over blocks of 16 floats, then the rest one by
//     ;;    one. f32x4.max and f32.max return NaN when either side is NaN, so a NaN anywhere
//     ;;    makes the maximum NaN.
//     ;; 2. its first index: the first 4-float block holding a value equal to it (f32x4.eq,
//     ;;    v128.any_true), then one by one from there. NaN equals nothing: -1.
//   )
// Equality treats -0 and +0 as equal, as JavaScript's `===` and `indexOf` do (argmax.ts).

const I32 = 0x7f;
const F32 = 0x7d;
const V128 = 0x7b;
const op = {
  block: [0x02, 0x40],
  loop: [0x03, 0x40],
  if: [0x04, 0x40],
  end: [0x0b],
  br: (depth: number) => [0x0c, depth],
  brIf: (depth: number) => [0x0d, depth],
  return: [0x0f],
  get: (local: number) => [0x20, local],
  set: (local: number) => [0x21, local],
  tee: (local: number) => [0x22, local],
  f32Load: [0x2a, 2, 0], // align 4, offset 0
  i32Const: (value: number) => [0x41, ...signedLeb(value)],
  i32Eqz: [0x45],
  i32LtU: [0x49],
  i32Add: [0x6a],
  i32And: [0x71],
  i32Shl: [0x74],
  i32ShrU: [0x76],
  f32Eq: [0x5b],
  f32Max: [0x97],
  v128Load: (offset: number) => [0xfd, 0x00, 4, offset], // align 16
  v128Const: (lane: number[]) => [0xfd, 0x0c, ...lane, ...lane, ...lane, ...lane],
  f32x4Splat: [0xfd, 0x13],
  f32x4ExtractLane: (lane: number) => [0xfd, 0x1f, lane],
  f32x4Eq: [0xfd, 0x41],
  v128AnyTrue: [0xfd, 0x53],
  f32x4Max: [0xfd, 0xe9, 0x01],
};
const NEGATIVE_INFINITY_F32 = [0x00, 0x00, 0x80, 0xff]; // little-endian 0xff800000

function signedLeb(value: number): number[] {
  const bytes: number[] = [];
  for (;;) {
    const byte = value & 0x7f;
    value >>= 7;
    if ((value === 0 && (byte & 0x40) === 0) || (value === -1 && (byte & 0x40) !== 0)) return [...bytes, byte];
    bytes.push(byte | 0x80);
  }
}

function unsignedLeb(value: number): number[] {
  const bytes: number[] = [];
  do {
    const byte = value & 0x7f;
    value >>>= 7;
    bytes.push(value === 0 ? byte : byte | 0x80);
  } while (value !== 0);
  return bytes;
}

function argmaxBody(): number[] {
  // Locals: the parameter n, then i and end (byte offsets), four accumulators, the maximum.
  const [n, i, end, a, b, c, d, max] = [0, 1, 2, 3, 4, 5, 6, 7];
  const upTo = (bytes: number) => [...op.get(n), ...op.i32Const(-bytes / 4), ...op.i32And, ...op.i32Const(2), ...op.i32Shl, ...op.set(end)];
  const accumulate = (acc: number, offset: number) => [...op.get(acc), ...op.get(i), ...op.v128Load(offset), ...op.f32x4Max, ...op.set(acc)];
  const lane = (k: number) => [...op.get(a), ...op.f32x4ExtractLane(k)];
  // while (i < end) { ...step; i += stride }, as block/loop with the test first.
  const whileBelowEnd = (stride: number, step: number[]) => [
    ...op.block, ...op.loop,
    ...op.get(i), ...op.get(end), ...op.i32LtU, ...op.i32Eqz, ...op.brIf(1),
    ...step,
    ...op.get(i), ...op.i32Const(stride), ...op.i32Add, ...op.set(i), ...op.br(0),
    ...op.end, ...op.end,
  ];
  return [
    3, 2, I32, 4, V128, 1, F32,
    // 1. The maximum. Four accumulators, so that one f32x4.max need not wait for the last.
    ...upTo(64),
    ...op.v128Const(NEGATIVE_INFINITY_F32), ...op.tee(a), ...op.tee(b), ...op.tee(c), ...op.set(d),
    ...whileBelowEnd(64, [...accumulate(a, 0), ...accumulate(b, 16), ...accumulate(c, 32), ...accumulate(d, 48)]),
    ...op.get(a), ...op.get(b), ...op.f32x4Max, ...op.get(c), ...op.get(d), ...op.f32x4Max, ...op.f32x4Max, ...op.set(a),
    ...lane(0), ...lane(1), ...op.f32Max, ...lane(2), ...lane(3), ...op.f32Max, ...op.f32Max, ...op.set(max),
    ...upTo(4),
    ...whileBelowEnd(4, [...op.get(max), ...op.get(i), ...op.f32Load, ...op.f32Max, ...op.set(max)]),
    // 2. Its first index: skip the 4-float blocks that hold no equal value, then look one by one.
    ...op.get(max), ...op.f32x4Splat, ...op.set(a), ...op.i32Const(0), ...op.set(i),
    ...upTo(16),
    ...whileBelowEnd(16, [...op.get(i), ...op.v128Load(0), ...op.get(a), ...op.f32x4Eq, ...op.v128AnyTrue, ...op.brIf(1)]),
    ...upTo(4),
    ...whileBelowEnd(4, [...op.get(i), ...op.f32Load, ...op.get(max), ...op.f32Eq, ...op.if, ...op.get(i), ...op.i32Const(2), ...op.i32ShrU, ...op.return, ...op.end]),
    ...op.i32Const(-1),
    ...op.end,
  ];
}

function moduleBytes(): Uint8Array {
  const section = (id: number, content: number[]) => [id, ...unsignedLeb(content.length), ...content];
  const name = (text: string) => [...unsignedLeb(text.length), ...new TextEncoder().encode(text)];
  const body = argmaxBody();
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 1, I32, 1, I32]), // one type: (i32) -> i32
    ...section(3, [1, 0]), // one function of that type
    ...section(5, [1, 0x00, 1]), // one memory, one page to start
    ...section(7, [2, ...name('memory'), 0x02, 0, ...name('argmax'), 0x00, 0]),
    ...section(10, [1, ...unsignedLeb(body.length), ...body]),
  ]);
}

/** The part of the WebAssembly global used here (the project's TypeScript libs declare none). */
interface WasmGlobal {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
}

interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

interface SimdArgmax {
  memory: WasmMemory;
  argmax: (n: number) => number;
  row: Float32Array;
}

function instantiate(): SimdArgmax | undefined {
  const bytes = moduleBytes();
  const wasm = (globalThis as { WebAssembly?: WasmGlobal }).WebAssembly;
  // A runtime without wasm SIMD (none that this project supports) keeps the JavaScript loop.
  if (!wasm?.validate(bytes)) return undefined;
  const { exports } = new wasm.Instance(new wasm.Module(bytes));
  const memory = exports.memory as WasmMemory;
  return { memory, argmax: exports.argmax as (n: number) => number, row: new Float32Array(memory.buffer) };
}

const simd = instantiate();

/** Whether simdArgmax can run here (wasm SIMD); argmax.ts falls back to JavaScript otherwise. */
export const simdArgmaxAvailable = simd !== undefined;

/**
 * Lowest index of the largest value of `logits`, or -1 when it holds a NaN. An all -Infinity
 * row answers 0 (its largest value is -Infinity): the caller tells that case apart.
 */
export function simdArgmax(logits: Float32Array): number {
  if (!simd) throw new Error('WebAssembly SIMD is not available');
  if (simd.row.length < logits.length) {
    // Grown once per thread to the widest row seen (a vocabulary): 64 KiB pages.
    simd.memory.grow(Math.ceil((logits.length - simd.row.length) / 16384));
    simd.row = new Float32Array(simd.memory.buffer);
  }
  simd.row.set(logits);
  return simd.argmax(logits.length);
}
