// The benchmark report as a text table for people (the JSON form is the report itself).
import type { BenchReport } from './run-benchmark.js';
import type { Distribution } from './percentile.js';

export function formatReport(report: BenchReport): string {
  const load =
    report.mode === 'poisson'
      ? `Poisson arrivals at ${report.request_rate} req/s${report.concurrency ? `, at most ${report.concurrency} in flight` : ''}`
      : `concurrency ${report.concurrency}`;
  const prompt = report.mean_prompt_tokens === null ? 'the server sent no usage' : `${report.mean_prompt_tokens.toFixed(1)} prompt tokens on average after templating`;
  const lines = [
    `${report.url}  model ${report.model}`,
    `${load}; ${report.num_prompts} requests, input ≈${report.input_len} tokens (${prompt}), output ${report.output_len} tokens`,
    `completed ${report.completed}, failed ${report.failed}, in ${report.duration_s.toFixed(2)} s`,
    ...report.errors.map((e) => `  failure ×${e.count}: ${e.message}`),
    ...(report.retried > 0 ? [`  retried ×${report.retried}: the server closed the connection before answering; sent again on a fresh one`] : []),
    '',
    row('request throughput', `${report.request_throughput.toFixed(2)} req/s`),
    row('output throughput', `${report.output_throughput.toFixed(1)} tok/s`),
    row('total throughput', `${report.total_token_throughput.toFixed(1)} tok/s`),
    row('mean output tokens', report.mean_output_tokens.toFixed(1)),
    '',
    `${'ms'.padEnd(12)}${['mean', 'p50', 'p90', 'p99'].map((h) => h.padStart(10)).join('')}`,
    dist('TTFT', report.ttft_ms),
    dist('TPOT', report.tpot_ms),
    dist('ITL', report.itl_ms),
    dist('latency', report.e2e_latency_ms),
  ];
  return lines.join('\n');
}

function row(label: string, value: string): string {
  return `${label.padEnd(22)}${value}`;
}

function dist(label: string, d: Distribution): string {
  return `${label.padEnd(12)}${[d.mean, d.p50, d.p90, d.p99].map((v) => (Number.isNaN(v) ? '-' : v.toFixed(2)).padStart(10)).join('')}`;
}
