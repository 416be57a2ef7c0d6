// The comparison as rows: one metric per row, each server's figure, lmforge over
// llama-server, and the goal with whether it is met. Both the table and --json
// are made from these rows.
import type { LongPromptResult } from './long-prompt.js';
import type { MultiTurnResult } from './multi-turn.js';
import type { ServerKind } from './servers.js';
import type { SharedSystemResult } from './shared-system.js';

export interface Goal {
  /** 'ratio': lmforge / llama-server; 'each': every server's own figure. */
  on: 'ratio' | 'each';
  op: '<=' | '>=';
  value: number;
}

export interface Row {
  metric: string;
  lmforge: number | null;
  'llama-server': number | null;
  /** lmforge / llama-server; null unless both ran. */
  ratio: number | null;
  digits: number;
  goal?: Goal;
  /** Whether the goal is met, per the goal's subject; absent without a goal or figures. */
  met?: Partial<Record<'ratio' | ServerKind, boolean>>;
}

type Pair<T> = Partial<Record<ServerKind, T>>;

function row(metric: string, figures: Pair<number | null>, digits: number, goal?: Goal): Row {
  const lf = figures.lmforge ?? null;
  const ls = figures['llama-server'] ?? null;
  const ratio = lf !== null && ls !== null && Number.isFinite(lf) && Number.isFinite(ls) && ls !== 0 ? lf / ls : null;
  const r: Row = { metric, lmforge: lf, 'llama-server': ls, ratio, digits };
  if (!goal) return r;
  r.goal = goal;
  const test = (x: number) => (goal.op === '<=' ? x <= goal.value : x >= goal.value);
  const met: Row['met'] = {};
  if (goal.on === 'ratio' && ratio !== null) met.ratio = test(ratio);
  if (goal.on === 'each') for (const kind of ['lmforge', 'llama-server'] as const) if (r[kind] !== null && Number.isFinite(r[kind])) met[kind] = test(r[kind]!);
  if (Object.keys(met).length > 0) r.met = met;
  return r;
}

function pick<T, V>(results: Pair<T>, get: (result: T) => V): Pair<V> {
  const out: Pair<V> = {};
  for (const [kind, result] of Object.entries(results) as [ServerKind, T][]) out[kind] = get(result);
  return out;
}

export function multiTurnRows(results: Pair<MultiTurnResult>, turns: number): Row[] {
  const rows: Row[] = [];
  for (let t = 0; t < turns; t++) {
    rows.push(row(`TTFT turn ${t + 1}, median (ms)`, pick(results, (r) => r.ttft_ms[t] ?? null), 1, t > 0 ? { on: 'ratio', op: '<=', value: 0.8 } : undefined));
  }
  rows.push(row(`TTFT turn ${turns} / turn 1`, pick(results, (r) => (r.ttft_ms[turns - 1] ?? NaN) / (r.ttft_ms[0] ?? NaN)), 2, { on: 'each', op: '<=', value: 0.6 }));
  rows.push(row('wall time (s)', pick(results, (r) => r.wall_s), 2));
  for (let t = 0; t < turns; t++) rows.push(row(`prompt tokens turn ${t + 1}, median`, pick(results, (r) => r.prompt_tokens[t] ?? null), 0));
  for (let t = 0; t < turns; t++) rows.push(row(`cached tokens turn ${t + 1}, median`, pick(results, (r) => r.cached_tokens[t] ?? null), 0));
  rows.push(row('failed requests', pick(results, (r) => r.failed), 0));
  return rows;
}

export function sharedSystemRows(results: Pair<SharedSystemResult>): Row[] {
  return [
    row('TTFT p50 (ms)', pick(results, (r) => r.ttft_p50_ms), 1),
    row('TTFT p95 (ms)', pick(results, (r) => r.ttft_p95_ms), 1),
    row('completion tokens/s', pick(results, (r) => r.completion_tokens_per_s), 1, { on: 'ratio', op: '>=', value: 1.5 }),
    row('requests/s', pick(results, (r) => r.requests_per_s), 2, { on: 'ratio', op: '>=', value: 1.5 }),
    row('wall time (s)', pick(results, (r) => r.wall_s), 2),
    row('prompt tokens, mean', pick(results, (r) => r.mean_prompt_tokens), 0),
    row('cached tokens, mean', pick(results, (r) => r.mean_cached_tokens), 0),
    row('failed requests', pick(results, (r) => r.failed), 0),
  ];
}

export function longPromptRows(results: Pair<LongPromptResult>): Row[] {
  return [
    row('stream ITL p99 before (ms)', pick(results, (r) => r.itl_p99_before_ms), 1),
    row('stream ITL p99 during (ms)', pick(results, (r) => r.itl_p99_during_ms), 1),
    row('ITL p99 during / before', pick(results, (r) => r.during_over_before), 2, { on: 'each', op: '<=', value: 3 }),
    row('stream ITL p99 undisturbed (ms)', pick(results, (r) => r.itl_p99_undisturbed_ms), 1),
    row('ITL p99 during / undisturbed', pick(results, (r) => r.during_over_undisturbed), 2),
    row('stream ITL p50 before (ms)', pick(results, (r) => r.itl_p50_before_ms), 1),
    row('stream ITL p50 during (ms)', pick(results, (r) => r.itl_p50_during_ms), 1),
    row('gaps before', pick(results, (r) => r.gaps_before), 0),
    row('gaps during', pick(results, (r) => r.gaps_during), 0),
    row('gaps undisturbed', pick(results, (r) => r.gaps_undisturbed), 0),
    row('long prompt TTFT (ms)', pick(results, (r) => r.long_ttft_ms), 1),
    row('long prompt tokens', pick(results, (r) => r.long_prompt_tokens), 0),
    row('long prompt cached tokens', pick(results, (r) => r.long_cached_tokens), 0),
    row('streams ended before prefill', pick(results, (r) => r.streams_ended_early), 0),
    row('failed requests', pick(results, (r) => r.failed), 0),
  ];
}
