// Sorts token ids by their bytes (shorter first where one is a prefix of the other; equal
// byte strings by id): a most-significant-byte radix sort over the flat byte array, which
// touches each byte about once, where a comparison sort builds a string per token and calls
// back into JavaScript n log n times.

const SMALL = 24;

/** `ids` sorted in place by `bytes[offsets[id], offsets[id + 1])`. */
export function sortByBytes(ids: Int32Array, bytes: Uint8Array, offsets: Uint32Array): Int32Array {
  const scratch = new Int32Array(ids.length);
  const counts = new Int32Array(257);
  // Work list of [lo, hi, depth): ids[lo..hi) share their first `depth` bytes.
  const stack: number[] = [0, ids.length, 0];
  while (stack.length > 0) {
    const depth = stack.pop()!;
    const hi = stack.pop()!;
    const lo = stack.pop()!;
    if (hi - lo <= SMALL) {
      insertionSort(ids, lo, hi, depth, bytes, offsets);
      continue;
    }
    // Bucket 0: tokens that end here; bucket b + 1: next byte b. Counting sort is stable, so
    // ids stay ascending within a bucket.
    counts.fill(0);
    for (let i = lo; i < hi; i++) counts[bucket(ids[i]!, depth, bytes, offsets)]!++;
    let at = lo;
    for (let b = 0; b < 257; b++) {
      const n = counts[b]!;
      counts[b] = at;
      if (b > 0 && n > 1) stack.push(at, at + n, depth + 1);
      at += n;
    }
    for (let i = lo; i < hi; i++) scratch[counts[bucket(ids[i]!, depth, bytes, offsets)]!++] = ids[i]!;
    ids.set(scratch.subarray(lo, hi), lo);
  }
  return ids;
}

function bucket(id: number, depth: number, bytes: Uint8Array, offsets: Uint32Array): number {
  const at = offsets[id]! + depth;
  return at < offsets[id + 1]! ? bytes[at]! + 1 : 0;
}

/** Stable: an id moves left only past ids whose bytes are greater. */
function insertionSort(ids: Int32Array, lo: number, hi: number, depth: number, bytes: Uint8Array, offsets: Uint32Array): void {
  for (let i = lo + 1; i < hi; i++) {
    const id = ids[i]!;
    let j = i - 1;
    while (j >= lo && compareFrom(ids[j]!, id, depth, bytes, offsets) > 0) {
      ids[j + 1] = ids[j]!;
      j--;
    }
    ids[j + 1] = id;
  }
}

function compareFrom(a: number, b: number, depth: number, bytes: Uint8Array, offsets: Uint32Array): number {
  const aEnd = offsets[a + 1]!;
  const bEnd = offsets[b + 1]!;
  let i = offsets[a]! + depth;
  let j = offsets[b]! + depth;
  for (; i < aEnd && j < bEnd; i++, j++) if (bytes[i] !== bytes[j]) return bytes[i]! - bytes[j]!;
  return aEnd - i - (bEnd - j) || a - b;
}
