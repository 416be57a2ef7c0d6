// The live view of the server in the top bar, from GET /metrics (Prometheus text, read with the
// page's key): requests running and waiting, KV cells in use, and the share of prompt tokens the
// prefix cache served. Polled every 2 s while the tab is visible.
import { get } from './api.js';

const PERIOD_MS = 2000;

/** Sums of each metric over its labels, from the text format's sample lines. */
export function parseMetrics(text) {
  const sums = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{.*\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    sums.set(match[1], (sums.get(match[1]) ?? 0) + Number(match[2]));
  }
  return sums;
}

const percent = (part, whole) => (whole > 0 ? `${((100 * part) / whole).toFixed(part > 0 && part < whole / 100 ? 1 : 0)}%` : '–');

function show(sums) {
  const value = (name) => sums.get(`lmforge_${name}`) ?? 0;
  const set = (stat, text) => {
    const element = document.querySelector(`[data-stat="${stat}"]`);
    element.textContent = text;
  };
  set('running', `running ${value('requests_running')}${value('requests_waiting') > 0 ? ` (+${value('requests_waiting')} waiting)` : ''}`);
  // No total yet (the engine still loading, or restarting): nothing to say, rather than "of 0".
  set('kv', value('kv_cells_total') > 0 ? `KV ${percent(value('kv_cells_used'), value('kv_cells_total'))} of ${value('kv_cells_total')}` : 'KV –');
  set('cache', `cache hits ${percent(value('cached_prompt_tokens_total'), value('prompt_tokens_total'))}`);
}

/**
 * Starts polling; a failed scrape (no key yet, server gone) leaves the last figures and tries
 * again. `onBack` runs when a scrape succeeds after one failed: the server may have come back
 * with another model.
 */
export function watchServer(onBack = () => {}) {
  const stats = document.getElementById('server-stats');
  const poll = async () => {
    if (document.visibilityState === 'visible') {
      try {
        show(parseMetrics(await (await get('/metrics')).text()));
        if (stats.dataset.live === 'false') onBack();
        stats.dataset.live = 'true';
      } catch {
        stats.dataset.live = 'false';
      }
    }
    setTimeout(poll, PERIOD_MS);
  };
  void poll();
}
