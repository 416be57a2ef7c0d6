// A model of llama.cpp's unified KV cache for tests without a model: cells with a position
// and a set of sequence ids, shared by seq_cp and freed when no sequence holds them. With
// `copies`, a model of a stream per sequence: copy makes new cells for the target. The test
// plays the decode (compute) itself.
import type { KvOps } from '../../runtime/engine/worker/kv-manager.js';

interface Cell {
  position: number;
  sequences: Set<number>;
}

export class FakeKvCache implements KvOps {
  readonly cells = new Set<Cell>();
  /** Every call, for tests that check what the manager asked for. */
  readonly calls: string[] = [];

  /** `copies`: a stream of cells per sequence, where a copy duplicates cells instead of sharing them. */
  constructor(private readonly copies = false) {}

  /** What a decode does: a new cell per position for `sequence`. */
  compute(sequence: number, from: number, count: number): void {
    for (let p = from; p < from + count; p++) {
      if (this.positionsOf(sequence).includes(p)) throw new Error(`sequence ${sequence} already has position ${p}`);
      this.cells.add({ position: p, sequences: new Set([sequence]) });
    }
  }

  copy(source: number, target: number, from: number, to: number): void {
    this.calls.push(`copy ${source}->${target} [${from},${to})`);
    for (const cell of this.cells) {
      if (!cell.sequences.has(source) || !inRange(cell.position, from, to)) continue;
      if (this.positionsOf(target).includes(cell.position)) throw new Error(`sequence ${target} would hold position ${cell.position} twice`);
      if (this.copies) this.cells.add({ position: cell.position, sequences: new Set([target]) });
      else cell.sequences.add(target);
    }
  }

  remove(sequence: number, from: number, to: number): void {
    this.calls.push(`remove ${sequence} [${from},${to})`);
    for (const cell of [...this.cells]) {
      if (!cell.sequences.has(sequence) || !inRange(cell.position, from, to)) continue;
      cell.sequences.delete(sequence);
      if (cell.sequences.size === 0) this.cells.delete(cell);
    }
  }

  minPosition(sequence: number): number {
    const positions = this.positionsOf(sequence);
    return positions.length === 0 ? -1 : Math.min(...positions);
  }

  /** Sorted positions a sequence holds. */
  positionsOf(sequence: number): number[] {
    const positions: number[] = [];
    for (const cell of this.cells) if (cell.sequences.has(sequence)) positions.push(cell.position);
    return positions.sort((a, b) => a - b);
  }

  /** Whether two sequences hold the very same cell at `position`. */
  shareCell(a: number, b: number, position: number): boolean {
    for (const cell of this.cells) if (cell.position === position && cell.sequences.has(a) && cell.sequences.has(b)) return true;
    return false;
  }
}

function inRange(position: number, from: number, to: number): boolean {
  return (from < 0 || position >= from) && (to < 0 || position < to);
}

/** The integers [from, to) in order: token runs, and the positions a whole prefix holds. */
export function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}
