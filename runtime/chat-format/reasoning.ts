// Reasoning (thinking) models: the output is a think block closed by `</think>`, then the
// answer. Which models think: `--reasoning auto` (the default) asks the chat template, which is
// the ground truth of the format: a template that writes `</think>` thinks; `on` and `off`
// override it. Where the block starts is read off the rendered prompt, per request:
//   - the prompt ends with `<think>` (Qwen3, DeepSeek-R1-0528, GLM, Kimi-K2.5): the output
//     starts inside the block;
//   - it ends with `</think>` (thinking switched off by the template, e.g. enable_thinking
//     false): the output is the answer alone;
//   - otherwise the model opens the block itself with `<think>`.
// The thinking is free text; only what follows `</think>` is constrained (tool calls,
// response_format), by wrapping that part's structural tag after a think tag.
// Families with other delimiters (Cohere's <|START_THINKING|>, Kimi-K3's think block, Harmony's
// analysis channel) pass their markers (tool-formats.ts); <think> and </think> are the default.
import type { GrammarSpec } from '../grammar-service/grammar-spec.js';
import { THINK_TAGS, type ThinkMarkers } from './tool-formats.js';

export type ReasoningMode = 'on' | 'off' | 'auto';
export const REASONING_MODES: readonly ReasoningMode[] = ['on', 'off', 'auto'];

export const THINK_OPEN = '<think>';
export const THINK_CLOSE = '</think>';

/** Whether a model with this chat template thinks, under the launch option. */
export function modelThinks(mode: ReasoningMode, template: string | undefined, markers: ThinkMarkers = THINK_TAGS): boolean {
  if (mode !== 'auto') return mode === 'on';
  return template !== undefined && template.includes(markers.inTemplate ?? markers.close);
}

/** `open`: the output starts inside the think block; `model`: the model writes `<think>`; `closed`: no thinking. */
export type ThinkStart = 'open' | 'model' | 'closed';

export function thinkStartOf(prompt: string, markers: ThinkMarkers = THINK_TAGS): ThinkStart {
  const tail = prompt.trimEnd();
  if (tail.endsWith(markers.open)) return 'open';
  if (tail.endsWith(markers.close)) return 'closed';
  if (markers.answerOpen !== undefined && tail.endsWith(markers.answerOpen)) return 'closed';
  return 'model';
}

/** The structural-tag format node that a grammar spec stands for, to be put after the thinking (or beside tool calls). */
export function formatNodeOf(spec: GrammarSpec): object {
  switch (spec.kind) {
    case 'json_object':
      // Any object, said explicitly (structural tags also read a bare {"type": "object"} so).
      return { type: 'json_schema', json_schema: { type: 'object', additionalProperties: true }, ...whitespaceOf(spec.options?.maxWhitespace) };
    case 'json_schema':
      return { type: 'json_schema', json_schema: spec.schema, ...(spec.options?.style ? { style: spec.options.style } : {}), ...whitespaceOf(spec.options?.maxWhitespace) };
    case 'structural_tag': {
      const tag = spec.tag as { type?: string; format?: object };
      return tag.format ?? tag;
    }
    case 'ebnf':
      return { type: 'grammar', grammar: spec.text };
    case 'regex':
      return { type: 'regex', pattern: spec.pattern };
  }
}

/** The json_schema node's `max_whitespace` for a spec's option, when it has one. */
function whitespaceOf(max: number | null | undefined): { max_whitespace?: number | null } {
  return max === undefined ? {} : { max_whitespace: max === Infinity ? null : max };
}

/** `spec` constrained only after a free think block (whitespace allowed after `</think>`, as
 * Qwen3 writes `\n\n`; a little: unbounded, a model could write nothing else). */
export function afterThinking(spec: GrammarSpec, start: Exclude<ThinkStart, 'closed'>, markers: ThinkMarkers = THINK_TAGS): GrammarSpec {
  const think = { type: 'tag', begin: start === 'open' ? '' : markers.open, content: { type: 'any_text' }, end: markers.close };
  const gap = { type: 'regex', pattern: '[ \\t\\r\\n]{0,4}' };
  // The answer may open with the family's markup (a response block, the final channel).
  const leads = markers.answerLeads ?? [];
  const lead = leads.length === 0 ? [] : [{ type: 'optional', content: leads.length === 1 ? { type: 'const_string', value: leads[0] } : { type: 'or', elements: leads.map((value) => ({ type: 'const_string', value })) } }];
  return { kind: 'structural_tag', tag: { type: 'structural_tag', format: { type: 'sequence', elements: [think, gap, ...lead, formatNodeOf(spec)] } } };
}

export interface SplitDelta {
  reasoning?: string;
  /** More of the answer (what follows the think block). */
  answer?: string;
}

/** Length of the longest proper prefix of `pattern` that `text` ends with. */
function partialSuffix(text: string, pattern: string): number {
  for (let k = Math.min(pattern.length - 1, text.length); k > 0; k--) {
    if (text.endsWith(pattern.slice(0, k))) return k;
  }
  return 0;
}

/**
 * Splits generated text into reasoning and answer, incrementally, in the same way as the
 * tool-call parser: each push rescans the text and sends only what is new, and a scan of a
 * prefix is always a prefix of the scan of the whole text (a possible start of `</think>` and
 * whitespace at the edges are withheld), so streamed pieces concatenate to the whole result.
 */
export class ReasoningSplitter {
  private text = '';
  private reasoningSent = 0;
  private answerSent = 0;
  reasoning = '';
  answer = '';

  constructor(
    private readonly start: Exclude<ThinkStart, 'closed'>,
    private readonly markers: ThinkMarkers = THINK_TAGS,
  ) {}

  push(text: string): SplitDelta | undefined {
    this.text += text;
    return this.update(false);
  }

  /**
   * Where the text so far stands: before the model has shown whether it thinks (`undecided`:
   * only whitespace or the start of the open marker yet), without a think block (`none`), inside
   * one (`open`), or past its close marker (`closed`).
   */
  get block(): 'undecided' | 'none' | 'open' | 'closed' {
    return this.blockAfter('');
  }

  /** Where the text would stand with `more` after it (`block` of text pushed so far + more), pushing nothing. */
  blockAfter(more: string): 'undecided' | 'none' | 'open' | 'closed' {
    let body = this.text + more;
    if (this.start === 'model') {
      const rest = body.trimStart();
      if (rest.startsWith(this.markers.open)) body = rest.slice(this.markers.open.length);
      else return this.markers.open.startsWith(rest) ? 'undecided' : 'none';
    }
    return body.includes(this.markers.close) ? 'closed' : 'open';
  }

  finish(): SplitDelta | undefined {
    return this.update(true);
  }

  private scan(final: boolean): { reasoning: string; answer: string } {
    let body = this.text;
    if (this.start === 'model') {
      const lead = body.length - body.trimStart().length;
      const rest = body.slice(lead);
      if (rest.startsWith(this.markers.open)) body = rest.slice(this.markers.open.length);
      else if (!final && this.markers.open.startsWith(rest)) return { reasoning: '', answer: '' }; // may still open the block
      else return { reasoning: '', answer: this.text }; // no think block: all of it is the answer
    }
    const end = body.indexOf(this.markers.close);
    if (end < 0) {
      const shown = final ? body : body.slice(0, body.length - partialSuffix(body, this.markers.close));
      return { reasoning: shown.trim(), answer: '' };
    }
    return { reasoning: body.slice(0, end).trim(), answer: body.slice(end + this.markers.close.length).trimStart() };
  }

  private update(final: boolean): SplitDelta | undefined {
    const { reasoning, answer } = this.scan(final);
    const delta: SplitDelta = {};
    if (reasoning.length > this.reasoningSent) {
      delta.reasoning = reasoning.slice(this.reasoningSent);
      this.reasoningSent = reasoning.length;
      this.reasoning = reasoning;
    }
    if (answer.length > this.answerSent) {
      delta.answer = answer.slice(this.answerSent);
      this.answerSent = answer.length;
      this.answer = answer;
    }
    return delta.reasoning !== undefined || delta.answer !== undefined ? delta : undefined;
  }
}
