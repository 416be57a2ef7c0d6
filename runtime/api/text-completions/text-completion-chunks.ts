// A text completion's chunks (`text_completion`), built from engine events: each choice's text
// as it is generated, the echoed prompt in front of its first piece, its logprobs in the legacy
// form, and a finish chunk; the usage chunk last (generation.ts).
import type { EngineEvent, FinishReason } from '../../engine/protocol.js';
import type { ChunkFrame } from '../completion-chunk.js';
import type { ChunkBuilder } from '../generation.js';
import { legacyLogprobsOf, type LegacyLogprobs } from './legacy-logprobs.js';
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
  /** Characters of text sent so far: where the next token starts. */
  length: number;
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
    this.choices = Array.from({ length: options.prompts * options.n }, (_, index) => ({
      echo: options.echoes?.[Math.floor(index / options.n)] ?? '',
      length: 0,
      finish: undefined,
    }));
  }

  *chunksFor(event: EngineEvent): Iterable<TextCompletionChunk> {
    if (event.type === 'delta') {
      const choice = this.choices[event.choice]!;
      const echo = this.takeEcho(choice);
      const logprobs = this.options.logprobs && event.logprobs?.length ? legacyLogprobsOf(event.logprobs, choice.length + echo.length, event.text) : null;
      const text = echo + event.text;
      if (text === '' && !logprobs) return;
      choice.length += text.length;
      yield this.chunk({ index: event.choice, text, logprobs, finish_reason: null });
    } else if (event.type === 'finished') {
      const choice = this.choices[event.choice]!;
      choice.finish = event.reason;
      yield this.chunk({ index: event.choice, text: this.takeEcho(choice), logprobs: null, finish_reason: event.reason });
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
