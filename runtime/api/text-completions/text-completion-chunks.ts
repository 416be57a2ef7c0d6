// A text completion's chunks (`text_completion`), built from engine events: each choice's text
// as it is generated, the echoed prompt in front of its first piece, its logprobs in the legacy
// form, and a finish chunk; the usage chunk last (generation.ts).
import type { EngineEvent, FinishReason, TokenLogprob } from '../../engine/protocol.js';
import type { ChunkFrame } from '../completion-chunk.js';
import type { ChunkBuilder } from '../generation.js';
import { codePointsIn, legacyLogprobsOf, type LegacyLogprobs, TokenPlaces } from './legacy-logprobs.js';
import type { Usage } from '../usage.js';

export interface TextChunkChoice {
  index: number;
  text: string;
  logprobs: LegacyLogprobs | null;
  finish_reason: FinishReason | null;
}

export interface TextCompletionChunk extends ChunkFrame {
  object: 'text_completion';
  choices: TextChunkChoice[];
  usage?: Usage;
}

interface TextChoice {
  /** The prompt still to be echoed in front of the choice's next piece ('' once sent, or without echo). */
  echo: string;
  /** Code points of text sent so far, the echo's included. */
  sent: number;
  /** Where each token starts, after the echo. */
  places: TokenPlaces;
  echoLength: number;
  /**
   * Tokens whose text has not gone out yet: held back while it may begin a stop string, or
   * never sent (the stop string's own). Each goes out in the chunk whose text reaches it; those
   * left go out with the finish, at the text's end.
   */
  waiting: { entry: TokenLogprob; offset: number }[];
  finish: FinishReason | undefined;
}

export interface TextChunkOptions {
  /** Choices per prompt; choice `index` belongs to prompt floor(index / n). */
  n: number;
  /** With echo, each prompt's text; undefined without. */
  echoes: readonly string[] | undefined;
  /** Whether logprobs were asked for. */
  logprobs: boolean;
  prompts: number;
}

export class TextCompletionChunks implements ChunkBuilder<TextCompletionChunk> {
  private readonly choices: TextChoice[];

  constructor(private readonly frame: ChunkFrame, private readonly options: TextChunkOptions) {
    this.choices = Array.from({ length: options.prompts * options.n }, (_, index) => {
      const echo = options.echoes?.[Math.floor(index / options.n)] ?? '';
      return { echo, sent: 0, places: new TokenPlaces(), echoLength: codePointsIn(echo), waiting: [], finish: undefined };
    });
  }

  *chunksFor(event: EngineEvent): Iterable<TextCompletionChunk> {
    if (event.type === 'delta') {
      const choice = this.choices[event.choice]!;
      const text = this.takeEcho(choice) + event.text;
      if (this.options.logprobs) for (const entry of event.logprobs ?? []) choice.waiting.push({ entry, offset: choice.echoLength + choice.places.next(entry.bytes) });
      choice.sent += codePointsIn(text);
      const reached = choice.waiting.findIndex((token) => token.offset >= choice.sent);
      const placed = choice.waiting.splice(0, reached === -1 ? choice.waiting.length : reached);
      if (text === '' && placed.length === 0) return;
      yield this.chunk({ index: event.choice, text, logprobs: this.options.logprobs ? legacyLogprobsOf(placed) : null, finish_reason: null });
    } else if (event.type === 'finished') {
      const choice = this.choices[event.choice]!;
      choice.finish = event.reason;
      const text = this.takeEcho(choice);
      choice.sent += codePointsIn(text);
      const left = choice.waiting.splice(0).map((token) => ({ ...token, offset: Math.min(token.offset, choice.sent) }));
      yield this.chunk({ index: event.choice, text, logprobs: this.options.logprobs && left.length > 0 ? legacyLogprobsOf(left) : null, finish_reason: event.reason });
    }
  }

  finishReasons(): (FinishReason | undefined)[] {
    return this.choices.map((choice) => choice.finish);
  }

  usageChunk(usage: Usage): TextCompletionChunk {
    return { ...this.frame, object: 'text_completion', choices: [], usage };
  }

  /** The echoed prompt goes out once, in front of the choice's first piece. */
  private takeEcho(choice: TextChoice): string {
    const echo = choice.echo;
    choice.echo = '';
    return echo;
  }

  private chunk(choice: TextChunkChoice): TextCompletionChunk {
    return { ...this.frame, object: 'text_completion', choices: [choice] };
  }
}
