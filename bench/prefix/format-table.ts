// One scenario's rows as a text table: each server's figure, lmforge / llama-server, and
// the goal with its verdict.
import type { Row } from './rows.js';

export function formatTable(title: string, notes: readonly string[], rows: readonly Row[]): string {
  const head = `${'metric'.padEnd(36)}${'lmforge'.padStart(12)}${'llama-server'.padStart(14)}${'lf/ls'.padStart(8)}   goal`;
  const lines = [title, ...notes.map((n) => `  ${n}`), '', head];
  for (const r of rows) {
    const figure = (x: number | null) => (x === null || !Number.isFinite(x) ? '-' : x.toFixed(r.digits));
    const ratio = r.ratio === null ? '-' : r.ratio.toFixed(2);
    lines.push(`${r.metric.padEnd(36)}${figure(r.lmforge).padStart(12)}${figure(r['llama-server']).padStart(14)}${ratio.padStart(8)}   ${goalText(r)}`);
  }
  return lines.join('\n');
}

function goalText(r: Row): string {
  if (!r.goal) return '';
  const bound = `${r.goal.op === '<=' ? '≤' : '≥'} ${r.goal.value}`;
  const verdict = (ok: boolean | undefined) => (ok === undefined ? '?' : ok ? 'met' : 'missed');
  if (r.goal.on === 'ratio') return `lf/ls ${bound}: ${verdict(r.met?.ratio)}`;
  const each = (['lmforge', 'llama-server'] as const).filter((k) => r.met?.[k] !== undefined).map((k) => `${k} ${verdict(r.met?.[k])}`);
  return `each ${bound}: ${each.join(', ') || '?'}`;
}
