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
// (`begunCalls`): its arguments are not a whole JSON object.
import type { ToolFormat } from './tool-formats.js';
import { XML_READERS } from './xml-arguments.js';

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

  /** One call at `pos`; false when the text stops (or breaks off) inside it. */
  const call = (): boolean => {
    // Where the name is not followed by a delimiter (GLM), `get` and `get_weather` both match
    // `<tool_call>get_weather`: the longest wins, and a text that could still become a longer
    // one waits.
    let name: string | undefined;
    let length = 0;
    for (const candidate of tools.keys()) {
      const begin = format.callBegin(candidate);
      if (begin.length > length && text.startsWith(begin, pos)) [name, length] = [candidate, begin.length];
    }
    if (name === undefined) return false;
    const rest = text.slice(pos);
    if ([...tools.keys()].some((other) => format.callBegin(other).length > rest.length && format.callBegin(other).startsWith(rest))) return false;
    pos += length;
    // A written call index comes before the call is reported, as its id is sent with the name.
    let id: string | undefined;
    if (format.callIndex) {
      const index = new RegExp(`(${format.callIndex.pattern})${escapeRegExp(format.callIndex.after)}`, 'y');
      index.lastIndex = pos;
      const match = index.exec(text);
      if (!match) return false;
      id = format.callIndex.id(name, match[1]!);
      pos = index.lastIndex;
    }
    const scanned: ScannedCall = { name, ...(id !== undefined ? { id } : {}), args: '', complete: false };
    calls.push(scanned);
    skipWs();
    if (format.args === 'json') {
      const end = jsonEnd(text, pos);
      scanned.args = text.slice(pos, end < 0 ? text.length : end);
      if (end < 0) return false;
      pos = end;
    } else {
      const reader = XML_READERS[format.args]!;
      const schema = tools.get(name)!;
      const properties = (schema.properties ?? {}) as Record<string, unknown>;
      const patterns = Object.entries((schema.patternProperties ?? {}) as Record<string, unknown>);
      const schemaOf = (key: string): unknown => properties[key] ?? patterns.find(([p]) => new RegExp(p, 'u').test(key))?.[1] ?? schema.additionalProperties ?? true;
      const entries: string[] = [];
      for (;;) {
        const parameter = reader.read(text, pos, schemaOf, schema);
        if (!parameter) break;
        entries.push(`${JSON.stringify(parameter.key)}: ${JSON.stringify(parameter.value)}`);
        pos = parameter.end;
        skipWs();
      }
      scanned.args = `{${entries.join(', ')}`;
    }
    skipWs();
    if (!take(format.callEnd.trimStart())) return false;
    if (format.args !== 'json') scanned.args += '}';
    scanned.complete = true;
    return true;
  };

  while (pos < text.length) {
    // Between calls (or sections) nothing scanned so far can change.
    stable = { pos, content, calls: [...calls] };
    const at = text.indexOf(format.trigger, pos);
    if (at < 0) {
      const rest = text.slice(pos);
      content += final ? rest : rest.slice(0, rest.length - partialSuffix(rest, format.trigger));
      // A trigger still to come cannot start before this.
      const safe = Math.max(pos, text.length - format.trigger.length + 1);
      stable = { pos: safe, content: stable.content + text.slice(pos, safe), calls: stable.calls };
      break;
    }
    content += text.slice(pos, at);
    pos = at;
    if (!format.section) {
      if (!call()) break;
      continue;
    }
    if (!take(format.section.begin)) break;
    let open = true;
    while (open) {
      skipWs();
      if (take(format.section.end)) break;
      open = call();
    }
    if (!open) break;
  }
  return { content, calls, stable };
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
     * the first call can only be its unfinished opener, never content, even when cut short.
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
    const visible = this.startsWithCall && scan.calls.length === 0 ? '' : final && scan.calls.length === 0 ? scan.content : scan.content.trimEnd();
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
