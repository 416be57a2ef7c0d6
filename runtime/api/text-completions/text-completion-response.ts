// A text completion's chunks folded into its response (`text_completion`): each choice's pieces
// concatenated into one text, its logprobs into one set of lists.
import type { FinishReason } from '../../engine/protocol.js';
import type { ChunkFrame } from '../completion-chunk.js';
import type { PromptLogprobs } from '../prompt-logprobs.js';
import { appendLegacyLogprobs, emptyLegacyLogprobs, type LegacyLogprobs } from './legacy-logprobs.js';
import type { TextCompletionChunk } from './text-completion-chunks.js';
import type { Usage } from '../usage.js';
import { responseOf, type ChunkFold } from '../whole-response.js';

interface ChoiceSoFar {
  text: string;
  logprobs: LegacyLogprobs;
  promptLogprobs: PromptLogprobs | undefined;
  finish: FinishReason | undefined;
}

export class TextCompletionResponse implements ChunkFold<TextCompletionChunk> {
  private readonly choices: ChoiceSoFar[];

  constructor(private readonly frame: ChunkFrame, private readonly options: { choices: number; logprobs: boolean }) {
    this.choices = Array.from({ length: options.choices }, () => ({ text: '', logprobs: emptyLegacyLogprobs(), promptLogprobs: undefined, finish: undefined }));
  }

  add(chunk: TextCompletionChunk): void {
    for (const { index, text, logprobs, finish_reason, prompt_logprobs } of chunk.choices) {
      const choice = this.choices[index]!;
      choice.text += text;
      choice.promptLogprobs ??= prompt_logprobs;
      if (logprobs) appendLegacyLogprobs(choice.logprobs, logprobs);
      if (finish_reason) choice.finish = finish_reason;
    }
  }

  response(usage: Usage): object {
    return responseOf(this.frame, 'text_completion', this.choices, (choice) => ({
      text: choice.text,
      logprobs: this.options.logprobs ? choice.logprobs : null,
      ...(choice.promptLogprobs ? { prompt_logprobs: choice.promptLogprobs } : {}),
    }), usage);
  }
}
