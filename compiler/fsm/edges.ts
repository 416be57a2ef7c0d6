// Edge kinds shared by the FSM builder, the packed grammar automaton and the matcher.

export const EDGE_BYTE = 0; // lo..hi byte range
export const EDGE_RULE = 1; // aux = referenced rule
export const EDGE_REPEAT = 2; // aux = index into the counted-repeat table
export const EDGE_TOKEN = 3; // aux = token set: matches one of these token ids
export const EDGE_EXCLUDE_TOKEN = 4; // aux = token set: matches any token id but these
export const EDGE_EPSILON = 5; // builder only; removed before packing

/** A counted repeat: `rule` matched min..max times (max -1 = unbounded); `loop` is the state
 * a parent item waits in between iterations, carrying its count. */
export interface CountedRepeat {
  rule: number;
  min: number;
  max: number;
  loop: number;
}
