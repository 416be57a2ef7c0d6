// Reads tool calls back out of generated text, for one tool format, incrementally: each `push`
// rescans the text so far and returns only what is new (content, a call's name, more of its
// arguments). The whole-response path pushes the same deltas and keeps the accumulation, so a
// streamed response concatenates to exactly the whole one whatever the chunking; this holds
// because a scan of a prefix is always a prefix of the scan of the whole text:
//   - text that might be the start of the trigger is withheld until it is known not to be,
//   - trailing whitespace of the content is withheld (it is dropped when calls follow),
//   - JSON arguments are passed through as written; XML arguments become JSON one complete
//     parameter at a time, the closing brace only when the call is complete.
// The grammar guarantees the syntax of a finished output; an output cut short (max_tokens, a
// stop string) keeps its complete calls, and its unfinished call is reported apart
// (`begunCalls`): its arguments are not a whole JSON object. A call cut only in its closing
// markup, its JSON arguments whole, is complete.
import { callOpenings, type ToolFormat, triggersOf } from './tool-formats.js';
import { XML_READERS } from './xml-arguments.js';
import { withoutMarkup } from './answer-markup.js';
import { xmlParameterSchema } from '../../compiler/index.js';

export interface ScannedCall {
  name: string;
  /** The call's id when the format writes one (Kimi's `functions.F:N`). */
  id?: string;
  /** JSON text of the arguments so far (the complete object once `complete`). */
  args: string;
  complete: boolean;
}

export interface Scan {
  content: string;
  calls: ScannedCall[];
  /** Where a later scan of a longer text may resume: nothing before it can change any more. */
  stable: ScanStart;
}

export interface ScanStart {
  pos: number;
  content: string;
  calls: ScannedCall[];
}

export interface ToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function: { name?: string; arguments?: string };
}

export interface ParsedDelta {
  content?: string;
  tool_calls?: ToolCallDelta[];
}

export interface ParsedCall {
  id: string;
  name: string;
  /** The arguments' JSON text. */
  arguments: string;
}

const WS = /[ \t\r\n]*/y;

/** Per arguments schema, the schema of each parameter's value read so far (a scan rereads a call's parameters). */
const parameterSchemas = new WeakMap<object, (key: string) => unknown>();

/** The schema of a parameter's value, as the grammar read the arguments schema (allOf, $ref, patterns too). */
function parameterSchemaOf(args: Record<string, unknown>): (key: string) => unknown {
  let schemaOf = parameterSchemas.get(args);
  if (!schemaOf) {
    const known = new Map<string, unknown>();
    schemaOf = (key) => {
      if (!known.has(key)) known.set(key, xmlParameterSchema(args, key));
      return known.get(key);
    };
    parameterSchemas.set(args, schemaOf);
  }
  return schemaOf;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Length of the longest proper prefix of `pattern` that `text` ends with. */
function partialSuffix(text: string, pattern: string): number {
  for (let k = Math.min(pattern.length - 1, text.length); k > 0; k--) {
    if (text.endsWith(pattern.slice(0, k))) return k;
  }
  return 0;
}

/** End (exclusive) of the JSON object or array starting at `start`, or -1 while it is unfinished. */
function jsonEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/**
 * Content and calls of `text`; unless `final`, a trailing partial trigger is not content yet.
 * `from` resumes at the `stable` point of an earlier scan of a prefix of `text`.
 */
export function scanToolText(
  format: ToolFormat,
  tools: ReadonlyMap<string, Record<string, unknown>>,
  text: string,
  final: boolean,
  from: ScanStart = { pos: 0, content: '', calls: [] },
): Scan {
  const calls: ScannedCall[] = [...from.calls];
  let content = from.content;
  let pos = from.pos;
  let stable: ScanStart = from;
  const skipWs = () => {
    WS.lastIndex = pos;
    WS.exec(text);
    pos = WS.lastIndex;
  };
  const take = (literal: string): boolean => {
    if (!text.startsWith(literal, pos)) return false;
    pos += literal.length;
    return true;
  };
  /** Whether the regex `pattern` matches at `pos` (then skipped). */
  const matches = (pattern: string): boolean => {
    const re = new RegExp(pattern, 'y');
    re.lastIndex = pos;
    if (!re.test(text)) return false;
    pos = re.lastIndex;
    return true;
  };

  /** One call at `pos`; false when the text stops (or breaks off) inside it. */
  const call = (): boolean => {
    const index = format.callIndex;
    // An index written before the name (Cohere) is read first.
    let leadIndex: string | undefined;
    if (index?.lead !== undefined) {
      const lead = new RegExp(`${escapeRegExp(index.lead)}(${index.pattern})`, 'y');
      lead.lastIndex = pos;
      const match = lead.exec(text);
      if (!match || lead.lastIndex === text.length) return false; // the index may go on
      leadIndex = match[1]!;
      pos = lead.lastIndex;
    }
    // Where the name is not followed by a delimiter (GLM), `get` and `get_weather` both match
    // `<tool_call>get_weather`: the longest wins, and a text that could still become a longer
    // one waits.
    let name: string | undefined;
    let length = 0;
    const rest = text.slice(pos);
    for (const candidate of format.directAnswer ? [...tools.keys(), format.directAnswer] : tools.keys()) {
      for (const begin of callOpenings(format, candidate)) {
        if (begin.length > length && rest.startsWith(begin)) [name, length] = [candidate, begin.length];
        else if (begin.length > rest.length && begin.startsWith(rest)) return false;
      }
    }
    if (name === undefined) return false;
    pos += length;
    // A written call index comes before the call is reported, as its id is sent with the name.
    let id: string | undefined;
    if (index && leadIndex === undefined) {
      const after = new RegExp(`(${index.pattern})${escapeRegExp(index.after)}`, 'y');
      after.lastIndex = pos;
      const match = after.exec(text);
      if (!match) return false;
      id = index.id?.(name, match[1]!);
      pos = after.lastIndex;
    } else if (index && leadIndex !== undefined) id = index.id?.(name, leadIndex);
    const scanned: ScannedCall = { name, ...(id !== undefined ? { id } : {}), args: '', complete: false };
    // The template's "no tool needed" call is read through, but is no call (tool-formats.ts).
    if (name !== format.directAnswer || tools.has(name)) calls.push(scanned);
    skipWs();
    if (format.args === 'json') {
      const end = jsonEnd(text, pos);
      scanned.args = text.slice(pos, end < 0 ? text.length : end);
      if (end < 0) return false;
      pos = end;
    } else {
      const reader = XML_READERS[format.args]!;
      const schema = tools.get(name)!;
      const entries: string[] = [];
      for (;;) {
        const parameter = reader.read(text, pos, parameterSchemaOf(schema), schema);
        if (!parameter) break;
        entries.push(`${JSON.stringify(parameter.key)}: ${JSON.stringify(parameter.value)}`);
        pos = parameter.end;
        skipWs();
      }
      scanned.args = `{${entries.join(', ')}`;
    }
    skipWs();
    const callEnd = format.callEnd.trimStart();
    if (!take(callEnd)) {
      // An output that ended (a stop string such as `</tool_call>`) after whole JSON arguments,
      // inside the call's closing markup, made the call. XML arguments may have had more to come.
      if (final && format.args === 'json' && callEnd.startsWith(text.slice(pos))) scanned.complete = true;
      return false;
    }
    if (format.args !== 'json') scanned.args += '}';
    scanned.complete = true;
    return true;
  };

  const triggers = triggersOf(format);
  const longest = Math.max(...triggers.map((t) => t.length));
  while (pos < text.length) {
    // Between calls (or sections) nothing scanned so far can change.
    stable = { pos, content, calls: [...calls] };
    const found = triggers.map((t) => text.indexOf(t, pos)).filter((i) => i >= 0);
    if (found.length === 0) {
      const rest = text.slice(pos);
      content += final ? rest : rest.slice(0, rest.length - Math.max(...triggers.map((t) => partialSuffix(rest, t))));
      // A trigger still to come cannot start before this.
      const safe = Math.max(pos, text.length - longest + 1);
      stable = { pos: safe, content: stable.content + text.slice(pos, safe), calls: stable.calls };
      break;
    }
    const at = Math.min(...found);
    content += text.slice(pos, at);
    pos = at;
    if (!format.section) {
      if (!call()) break;
      continue;
    }
    const { begin, end, separator } = format.section;
    if (!take(begin)) break;
    if (format.section.open && !matches(format.section.open.pattern)) break;
    const close = format.section.close;
    const mark = separator.trim();
    let open = true;
    for (let n = 0; open; n++) {
      skipWs();
      if ((!close || matches(close.pattern)) && take(end)) break;
      if (n > 0 && mark !== '') {
        open = take(mark);
        if (!open) break;
        skipWs();
      }
      open = call();
    }
    if (!open) break;
  }
  return { content, calls, stable };
}

/**
 * Before the first call of an output that opens with calls, the text of the format's preamble
 * message (gpt-oss's), as far as it is known; the rest is the call's unfinished opener. A prefix
 * of the content once calls follow: that is the same message, its markup left out.
 */
function preambleText(format: ToolFormat, content: string, final: boolean): string {
  const preamble = format.preamble;
  const at = preamble ? content.indexOf(preamble.begin) : -1;
  if (!preamble || at < 0) return '';
  const body = content.slice(at + preamble.begin.length);
  const end = body.indexOf(preamble.end);
  const text = end >= 0 ? body.slice(0, end) : body.slice(0, body.length - partialSuffix(body, preamble.end));
  return withoutMarkup(text, format.markup ?? [], final).trimEnd();
}

/** Feeds generated text in and gets back what is new, as OpenAI stream deltas. */
export class ToolCallParser {
  private text = '';
  private resume: ScanStart | undefined;
  private contentSent = 0;
  private content = '';
  private readonly calls: { id: string; name: string; args: string; complete: boolean }[] = [];

  constructor(
    private readonly format: ToolFormat,
    private readonly tools: ReadonlyMap<string, Record<string, unknown>>,
    /** Call ids are `${idPrefix}${index}`, unless the format writes its own. */
    private readonly idPrefix: string,
    /**
     * The output opens with a call (tool_choice `required` or a named function): text before
     * the first call can only be its unfinished opener, never content, even when cut short;
     * except a preamble message, where the format has one (see `preambleText`).
     */
    private readonly startsWithCall = false,
  ) {}

  push(text: string): ParsedDelta | undefined {
    this.text += text;
    return this.update(false);
  }

  /** The output is over: release withheld text. */
  finish(): ParsedDelta | undefined {
    return this.update(true);
  }

  /** Complete calls so far, in order. */
  get toolCalls(): ParsedCall[] {
    return this.calls.filter((call) => call.complete).map((call) => ({ id: call.id, name: call.name, arguments: call.args }));
  }

  /** Every call begun, a last one cut short (max_tokens, a stop string) with the arguments sent of it. */
  get begunCalls(): ParsedCall[] {
    return this.calls.map((call) => ({ id: call.id, name: call.name, arguments: call.args }));
  }

  /** The content sent so far (all of it once finished); null when it is empty and there are calls. */
  get message(): { content: string | null; toolCalls: ParsedCall[] } {
    return this.messageWith(this.toolCalls);
  }

  /** As `message`, with a call cut short in it as far as it was streamed. */
  get streamedMessage(): { content: string | null; toolCalls: ParsedCall[] } {
    return this.messageWith(this.begunCalls);
  }

  private messageWith(toolCalls: ParsedCall[]): { content: string | null; toolCalls: ParsedCall[] } {
    return { content: this.content === '' && toolCalls.length > 0 ? null : this.content, toolCalls };
  }

  private update(final: boolean): ParsedDelta | undefined {
    const scan = scanToolText(this.format, this.tools, this.text, final, this.resume);
    this.resume = scan.stable;
    const content = withoutMarkup(scan.content, this.format.markup ?? [], final);
    let visible = this.startsWithCall && scan.calls.length === 0 ? preambleText(this.format, scan.content, final) : final && scan.calls.length === 0 ? content : content.trimEnd();
    // A forced answer is calls only: what follows the last call, when max_tokens cuts it, is
    // the next call's unfinished opener, never content.
    if (final && this.startsWithCall && scan.calls.length > 0) {
      const cut = Math.max(...triggersOf(this.format).map((trigger) => partialSuffix(visible, trigger)));
      visible = visible.slice(0, visible.length - cut).trimEnd();
    }
    const delta: ParsedDelta = {};
    if (visible.length > this.contentSent) {
      delta.content = visible.slice(this.contentSent);
      this.content += delta.content;
      this.contentSent = visible.length;
    }
    const toolDeltas: ToolCallDelta[] = [];
    scan.calls.forEach((call, index) => {
      let sent = this.calls[index];
      if (!sent) {
        sent = { id: call.id ?? `${this.idPrefix}${index}`, name: call.name, args: '', complete: false };
        this.calls.push(sent);
        toolDeltas.push({ index, id: sent.id, type: 'function', function: { name: call.name, arguments: '' } });
      }
      if (call.args.length > sent.args.length) {
        const piece = call.args.slice(sent.args.length);
        sent.args = call.args;
        const last = toolDeltas.at(-1);
        if (last?.index === index) last.function.arguments = piece;
        else toolDeltas.push({ index, function: { arguments: piece } });
      }
      sent.complete = call.complete;
    });
    if (toolDeltas.length > 0) delta.tool_calls = toolDeltas;
    return delta.content !== undefined || delta.tool_calls ? delta : undefined;
  }
}
