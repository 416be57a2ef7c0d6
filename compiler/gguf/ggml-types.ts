// ggml tensor types a GGUF may hold, as the pinned llama.cpp knows them (ggml.h and the
// type_traits table in ggml.c): elements per block and bytes per block, so a tensor's size
// follows from its dimensions. Codes llama.cpp removed (4, 5, 31-33, 36-38) are not here.
export interface GgmlType {
  name: string;
  /** Elements per block (1 for plain types). */
  block: number;
  /** Bytes per block. */
  bytes: number;
}

export const GGML_TYPES: ReadonlyMap<number, GgmlType> = new Map([
  [0, { name: 'F32', block: 1, bytes: 4 }],
  [1, { name: 'F16', block: 1, bytes: 2 }],
  [2, { name: 'Q4_0', block: 32, bytes: 18 }],
  [3, { name: 'Q4_1', block: 32, bytes: 20 }],
  [6, { name: 'Q5_0', block: 32, bytes: 22 }],
  [7, { name: 'Q5_1', block: 32, bytes: 24 }],
  [8, { name: 'Q8_0', block: 32, bytes: 34 }],
  [9, { name: 'Q8_1', block: 32, bytes: 36 }],
  [10, { name: 'Q2_K', block: 256, bytes: 84 }],
  [11, { name: 'Q3_K', block: 256, bytes: 110 }],
  [12, { name: 'Q4_K', block: 256, bytes: 144 }],
  [13, { name: 'Q5_K', block: 256, bytes: 176 }],
  [14, { name: 'Q6_K', block: 256, bytes: 210 }],
  [15, { name: 'Q8_K', block: 256, bytes: 292 }],
  [16, { name: 'IQ2_XXS', block: 256, bytes: 66 }],
  [17, { name: 'IQ2_XS', block: 256, bytes: 74 }],
  [18, { name: 'IQ3_XXS', block: 256, bytes: 98 }],
  [19, { name: 'IQ1_S', block: 256, bytes: 50 }],
  [20, { name: 'IQ4_NL', block: 32, bytes: 18 }],
  [21, { name: 'IQ3_S', block: 256, bytes: 110 }],
  [22, { name: 'IQ2_S', block: 256, bytes: 82 }],
  [23, { name: 'IQ4_XS', block: 256, bytes: 136 }],
  [24, { name: 'I8', block: 1, bytes: 1 }],
  [25, { name: 'I16', block: 1, bytes: 2 }],
  [26, { name: 'I32', block: 1, bytes: 4 }],
  [27, { name: 'I64', block: 1, bytes: 8 }],
  [28, { name: 'F64', block: 1, bytes: 8 }],
  [29, { name: 'IQ1_M', block: 256, bytes: 56 }],
  [30, { name: 'BF16', block: 1, bytes: 2 }],
  [34, { name: 'TQ1_0', block: 256, bytes: 54 }],
  [35, { name: 'TQ2_0', block: 256, bytes: 66 }],
  [39, { name: 'MXFP4', block: 32, bytes: 17 }],
  [40, { name: 'NVFP4', block: 64, bytes: 36 }],
  [41, { name: 'Q1_0', block: 128, bytes: 18 }],
  [42, { name: 'Q2_0', block: 64, bytes: 18 }],
]);

/** Bytes of a tensor's data, or undefined when its rows are not whole blocks of its type. */
export function tensorBytes(type: GgmlType, dims: readonly number[]): number | undefined {
  const row = dims[0] ?? 1;
  if (row % type.block !== 0) return undefined;
  const rows = dims.slice(1).reduce((a, b) => a * b, 1);
  return (row / type.block) * type.bytes * rows;
}
