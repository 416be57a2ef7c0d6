// A text completion's chunks (`text_completion`), built from engine events: each choice's text
// as it is generated, the echoed prompt in front of its first piece, its logprobs in the legacy
// form (the end token that finished it last among them, though its text is not output), and a
// finish chunk; the usage chunk last (generation.ts).
import type { EngineEvent, FinishReason, TokenLogprob } from '../../engine/protocol.js';
import type { ChunkFrame } from '../completion-chunk.js';
import type { ChunkBuilder } from '../generation.js';
import type { TokenNaming } from '../token-text.js';
import { promptLogprobsOf, type PromptLogprobs } from '../prompt-logprobs.js';
import { appendLegacyLogprobs, codePointsIn, emptyLegacyLogprobs, legacyLogprobsOf, promptLegacyLogprobs, type LegacyLogprobs, TokenCharacters } from './legacy-logprobs.js';
import type { Usage } from '../usage.js';

export interface TextChunkChoice {
  index: number;
  text: string;
  logprobs: LegacyLogprobs | null;
  finish_reason: FinishReason | null;
  /** prompt_logprobs asked for: on the choice's first chunk (never streamed: the request rules refuse it there). */
  prompt_logprobs?: PromptLogprobs;
}

export interface TextCompletionChunk extends ChunkFrame {
  object: 'text_completion';
  choices: TextChunkChoice[];
  usage?: Usage;
}

interface TextChoice {
  /** The prompt still to be echoed in front of the choice's next piece ('' once sent, or without echo). */
  echo: string;
  echoLength: number;
  /** The echoed prompt's scored tokens, sent with it (echo with logprobs); empty once sent, or without. */
  echoLogprobs: LegacyLogprobs;
  /** The prompt's scores in vLLM's shape (prompt_logprobs), until the choice's first chunk takes them. */
  promptLogprobs: PromptLogprobs | undefined;
  /** The text sent so far after the echo, a code point an entry. */
  sent: string[];
  /** Where in `sent` the next token's text starts. */
  cursor: number;
  characters: TokenCharacters;
  /**
   * Tokens not placed yet, each with the characters its bytes complete: placed where their text
   * shows in what was sent, so each goes out in the chunk whose text reaches it (text held back
   * while it may begin a stop string comes later than its token). A token whose text is not
   * there (a special token the text leaves out, a stop string's own) stays where the text is.
   */
  waiting: { entry: TokenLogprob; chars: string[] }[];
  finish: FinishReason | undefined;
}

export interface TextChunkOptions {
  /** Choices per prompt; choice `index` belongs to prompt floor(index / n). */
  n: number;
  /** With echo, each prompt's text; undefined without. */
  echoes: readonly string[] | undefined;
  /** Whether logprobs were asked for. */
  logprobs: boolean;
  /** The alternatives each legacy list entry has (`logprobs`'s number). */
  topLogprobs: number;
  /** prompt_logprobs: the alternatives each of its entries lists; undefined when not asked for. */
  promptLogprobs: number | undefined;
  /** How the legacy lists name a token (return_tokens_as_token_ids: by id); by its text when not given. */
  name?: TokenNaming;
  prompts: number;
}

export class TextCompletionChunks implements ChunkBuilder<TextCompletionChunk> {
  private readonly choices: TextChoice[];

  constructor(private readonly frame: ChunkFrame, private readonly options: TextChunkOptions) {
    this.choices = Array.from({ length: options.prompts * options.n }, (_, index) => {
      const echo = options.echoes?.[Math.floor(index / options.n)] ?? '';
      return { echo, echoLength: codePointsIn(echo), echoLogprobs: emptyLegacyLogprobs(), promptLogprobs: undefined, sent: [], cursor: 0, characters: new TokenCharacters(), waiting: [], finish: undefined };
    });
  }

  *chunksFor(event: EngineEvent): Iterable<TextCompletionChunk> {
    if (event.type === 'prompt_logprobs') {
      // The prompt's choices all share its scores: event.choice is its first.
      const prompt = Math.floor(event.choice / this.options.n);
      const { echoes, logprobs, topLogprobs, promptLogprobs } = this.options;
      const echoed = echoes && logprobs ? promptLegacyLogprobs(event.tokens, echoes[prompt]!, topLogprobs, this.options.name) : emptyLegacyLogprobs();
      const scored = promptLogprobs !== undefined ? promptLogprobsOf(event.tokens, promptLogprobs) : undefined;
      for (let index = event.choice; index < event.choice + this.options.n; index++) Object.assign(this.choices[index]!, { echoLogprobs: echoed, promptLogprobs: scored });
    } else if (event.type === 'delta') {
      const choice = this.choices[event.choice]!;
      const echo = this.takeEcho(choice);
      const text = echo.text + event.text;
      // Only logprobs need the text kept, to place their tokens in it.
      if (this.options.logprobs) {
        for (const entry of event.logprobs ?? []) choice.waiting.push({ entry, chars: choice.characters.next(entry.bytes) });
        choice.sent.push(...event.text);
      }
      const placed = this.place(choice, false);
      if (text === '' && placed.length === 0) return;
      yield this.chunk({ index: event.choice, text, logprobs: this.options.logprobs ? joined(echo.logprobs, legacyLogprobsOf(placed, this.options.name)) : null, finish_reason: null });
    } else if (event.type === 'finished') {
      const choice = this.choices[event.choice]!;
      choice.finish = event.reason;
      // The end token closes the lists, one entry per generated token as vLLM's: lm-evaluation-
      // harness reads a continuation's scores as token_logprobs[context:-1], the generated entry last.
      if (this.options.logprobs && event.endLogprob) choice.waiting.push({ entry: event.endLogprob, chars: choice.characters.next(event.endLogprob.bytes) });
      const echo = this.takeEcho(choice);
      const left = joined(echo.logprobs, legacyLogprobsOf(this.place(choice, true), this.options.name));
      yield this.chunk({ index: event.choice, text: echo.text, logprobs: this.options.logprobs && left.tokens.length > 0 ? left : null, finish_reason: event.reason });
    }
  }

  finishReasons(): (FinishReason | undefined)[] {
    return this.choices.map((choice) => choice.finish);
  }

  usageChunk(usage: Usage): TextCompletionChunk {
    return { ...this.frame, object: 'text_completion', choices: [], usage };
  }

  /** The waiting tokens whose place the text sent so far shows (all of them once the choice is finished), in order. */
  private place(choice: TextChoice, finished: boolean): { entry: TokenLogprob; offset: number }[] {
    const placed: { entry: TokenLogprob; offset: number }[] = [];
    while (choice.waiting.length > 0) {
      const { entry, chars } = choice.waiting[0]!;
      const ahead = choice.sent.slice(choice.cursor, choice.cursor + Math.max(chars.length, 1));
      // Its text is there: it starts at the cursor, which moves past it.
      const shown = chars.length > 0 && ahead.length === chars.length && ahead.every((c, i) => c === chars[i]);
      // Its text is not, nor ever will be: what was sent after the cursor already differs from it.
      const absent = chars.length > 0 && ahead.some((c, i) => c !== chars[i]);
      // A token that only begins a character waits for that character.
      const begun = chars.length === 0 && ahead.length > 0;
      if (!shown && !absent && !begun && !finished) break;
      placed.push({ entry, offset: choice.echoLength + choice.cursor });
      if (shown) choice.cursor += chars.length;
      choice.waiting.shift();
    }
    return placed;
  }

  /** The echoed prompt goes out once, in front of the choice's first piece, with its scored tokens. */
  private takeEcho(choice: TextChoice): { text: string; logprobs: LegacyLogprobs } {
    const echo = { text: choice.echo, logprobs: choice.echoLogprobs };
    choice.echo = '';
    choice.echoLogprobs = emptyLegacyLogprobs();
    return echo;
  }

  /** A chunk of one choice, its prompt's scores on the first one (prompt_logprobs). */
  private chunk(piece: TextChunkChoice): TextCompletionChunk {
    const choice = this.choices[piece.index]!;
    const scored = choice.promptLogprobs;
    choice.promptLogprobs = undefined;
    return { ...this.frame, object: 'text_completion', choices: [scored ? { ...piece, prompt_logprobs: scored } : piece] };
  }
}

/** `first`'s lists followed by `then`'s. */
function joined(first: LegacyLogprobs, then: LegacyLogprobs): LegacyLogprobs {
  if (first.tokens.length === 0) return then;
  const out = emptyLegacyLogprobs();
  appendLegacyLogprobs(out, first);
  appendLegacyLogprobs(out, then);
  return out;
}
