// A strict reader of the Prometheus text exposition format (version 0.0.4), for tests: it
// throws on anything a Prometheus server would refuse or misread — bad names, label syntax or
// escapes, samples before their TYPE, a family split in two, duplicate series, histograms whose
// buckets are not cumulative or whose +Inf bucket differs from _count.
//
//   const families = parsePrometheusText(await (await fetch(`${url}/metrics`)).text());
//   sampleValue(families, 'lmforge_http_requests_total', { status: '200' });

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface MetricFamily {
  name: string;
  type: MetricType;
  help: string | undefined;
  samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES: readonly string[] = ['counter', 'gauge', 'histogram', 'summary', 'untyped'];

class ParseError extends Error {
  constructor(line: number, message: string) {
    super(`metrics line ${line}: ${message}`);
  }
}

/** The family a sample belongs to: histogram and summary samples carry a suffix. */
function familyOf(sampleName: string, families: Map<string, MetricFamily>): MetricFamily | undefined {
  const exact = families.get(sampleName);
  if (exact) return exact;
  const suffix = /_(bucket|sum|count)$/.exec(sampleName);
  if (!suffix) return undefined;
  const family = families.get(sampleName.slice(0, -suffix[0].length));
  if (!family) return undefined;
  if (family.type === 'histogram') return family;
  if (family.type === 'summary' && suffix[1] !== 'bucket') return family;
  return undefined;
}

function parseValue(text: string, line: number): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new ParseError(line, `not a number: ${JSON.stringify(text)}`);
  return Number(text);
}

/** The index of the `"` that closes a label value starting at `from`, or -1. */
function closingQuote(text: string, from: number): number {
  for (let j = from; j < text.length; j++) {
    if (text[j] === '\\') j++;
    else if (text[j] === '"') return j;
  }
  return -1;
}

/** Undoes the format's escapes: `\\` and `\n` everywhere, `\"` in label values only; any other is an error. */
function unescape(text: string, quoted: boolean, line: number): string {
  return text.replace(/\\(.?)/g, (_, c: string) => {
    if (c === '\\') return '\\';
    if (c === 'n') return '\n';
    if (c === '"' && quoted) return '"';
    throw new ParseError(line, `bad escape \\${c}`);
  });
}

/** Reads `{a="x",b="y"}` from `text` at `start` (just after the `{`); returns the labels and the index after `}`. */
function parseLabels(text: string, start: number, line: number): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  let i = start;
  while (text[i] !== '}') {
    const eq = text.indexOf('=', i);
    if (eq < 0) throw new ParseError(line, 'a label without =');
    const name = text.slice(i, eq);
    if (!LABEL_NAME.test(name)) throw new ParseError(line, `bad label name ${JSON.stringify(name)}`);
    if (name in labels) throw new ParseError(line, `label ${name} given twice`);
    if (text[eq + 1] !== '"') throw new ParseError(line, `label ${name}'s value is not quoted`);
    const close = closingQuote(text, eq + 2);
    if (close < 0) throw new ParseError(line, `label ${name}'s value is not closed`);
    labels[name] = unescape(text.slice(eq + 2, close), true, line);
    i = close + 1;
    if (text[i] === ',') i++;
    else if (text[i] !== '}') throw new ParseError(line, `expected , or } after label ${name}`);
  }
  return { labels, end: i + 1 };
}

const seriesKey = (sample: Sample) => `${sample.name}${JSON.stringify(Object.entries(sample.labels).sort())}`;

function checkHistogram(family: MetricFamily): void {
  const series = new Map<string, { buckets: [number, number][]; sum?: number; count?: number }>();
  for (const sample of family.samples) {
    const { le, ...rest } = sample.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const entry = series.get(key) ?? { buckets: [] };
    series.set(key, entry);
    if (sample.name.endsWith('_bucket')) {
      if (le === undefined) throw new Error(`${family.name}: a bucket without le`);
      entry.buckets.push([parseValue(le, 0), sample.value]);
    } else if (sample.name.endsWith('_sum')) entry.sum = sample.value;
    else if (sample.name.endsWith('_count')) entry.count = sample.value;
    else throw new Error(`${family.name}: a histogram sample without a suffix`);
  }
  for (const [key, entry] of series) {
    const where = `${family.name}${key}`;
    if (entry.sum === undefined || entry.count === undefined) throw new Error(`${where}: _sum or _count is missing`);
    const last = entry.buckets.at(-1);
    if (!last || last[0] !== Infinity) throw new Error(`${where}: the last bucket is not le="+Inf"`);
    for (let i = 1; i < entry.buckets.length; i++) {
      const [le, count] = entry.buckets[i]!;
      const [previousLe, previousCount] = entry.buckets[i - 1]!;
      if (!(le > previousLe)) throw new Error(`${where}: bucket bounds are not increasing`);
      if (count < previousCount) throw new Error(`${where}: buckets are not cumulative`);
    }
    if (last[1] !== entry.count) throw new Error(`${where}: the +Inf bucket (${last[1]}) differs from _count (${entry.count})`);
  }
}

export function parsePrometheusText(text: string): Map<string, MetricFamily> {
  if (text !== '' && !text.endsWith('\n')) throw new Error('the exposition does not end with a line feed');
  const families = new Map<string, MetricFamily>();
  const series = new Set<string>();
  const typed = new Set<string>();
  let current: MetricFamily | undefined;
  const closed = new Set<string>();
  const enter = (family: MetricFamily, line: number) => {
    if (current === family) return;
    if (closed.has(family.name)) throw new ParseError(line, `${family.name}'s lines are not together`);
    if (current) closed.add(current.name);
    current = family;
  };
  const lines = text.split('\n').slice(0, -1);
  lines.forEach((content, index) => {
    const line = index + 1;
    if (content.trim() === '') return;
    if (content.startsWith('#')) {
      const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(content);
      if (!meta) return; // any other comment
      const [, kind, name, rest] = meta as unknown as [string, 'HELP' | 'TYPE', string, string];
      if (!METRIC_NAME.test(name)) throw new ParseError(line, `bad metric name ${JSON.stringify(name)}`);
      let family = families.get(name);
      if (!family) {
        family = { name, type: 'untyped', help: undefined, samples: [] };
        families.set(name, family);
      }
      enter(family, line);
      if (kind === 'HELP') {
        if (family.help !== undefined) throw new ParseError(line, `a second HELP for ${name}`);
        family.help = unescape(rest, false, line);
      } else {
        if (!TYPES.includes(rest)) throw new ParseError(line, `unknown type ${JSON.stringify(rest)}`);
        if (typed.has(name)) throw new ParseError(line, `a second TYPE for ${name}`);
        if (family.samples.length > 0) throw new ParseError(line, `TYPE after ${name}'s samples`);
        family.type = rest as MetricType;
        typed.add(name);
      }
      return;
    }
    const nameEnd = content.search(/[{ ]/);
    if (nameEnd <= 0) throw new ParseError(line, `not a sample: ${JSON.stringify(content)}`);
    const name = content.slice(0, nameEnd);
    if (!METRIC_NAME.test(name)) throw new ParseError(line, `bad metric name ${JSON.stringify(name)}`);
    let labels: Record<string, string> = {};
    let rest = content.slice(nameEnd);
    if (rest.startsWith('{')) {
      const parsed = parseLabels(content, nameEnd + 1, line);
      labels = parsed.labels;
      rest = content.slice(parsed.end);
    }
    const fields = /^ (\S+)( -?\d+)?$/.exec(rest);
    if (!fields) throw new ParseError(line, `expected " VALUE [TIMESTAMP]" after ${name}, got ${JSON.stringify(rest)}`);
    const sample: Sample = { name, labels, value: parseValue(fields[1]!, line) };
    let family = familyOf(name, families);
    if (!family) {
      family = { name, type: 'untyped', help: undefined, samples: [] };
      families.set(name, family);
    }
    enter(family, line);
    if (family.type === 'counter' && !(sample.value >= 0)) throw new ParseError(line, `counter ${name} is ${sample.value}`);
    const key = seriesKey(sample);
    if (series.has(key)) throw new ParseError(line, `series ${key} appears twice`);
    series.add(key);
    family.samples.push(sample);
  });
  for (const family of families.values()) if (family.type === 'histogram') checkHistogram(family);
  return families;
}

const matches = (sample: Sample, labels: Record<string, string>) => Object.entries(labels).every(([name, value]) => sample.labels[name] === value);

/** The value of the one sample of `name` whose labels include `labels`; 0 when there is none (a counter not yet incremented). */
export function sampleValue(families: Map<string, MetricFamily>, name: string, labels: Record<string, string> = {}): number {
  const family = familyOf(name, families);
  if (!family) throw new Error(`no metric ${name}`);
  const found = family.samples.filter((sample) => sample.name === name && matches(sample, labels));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value ?? 0;
}

/** A histogram's count, sum and cumulative bucket counts by upper bound. */
export function histogramOf(families: Map<string, MetricFamily>, name: string): { count: number; sum: number; buckets: Map<number, number> } {
  const family = families.get(name);
  if (family?.type !== 'histogram') throw new Error(`${name} is not a histogram`);
  const buckets = new Map<number, number>();
  for (const sample of family.samples) if (sample.name === `${name}_bucket`) buckets.set(parseValue(sample.labels.le!, 0), sample.value);
  return { count: sampleValue(families, `${name}_count`), sum: sampleValue(families, `${name}_sum`), buckets };
}
