// What the engine's token committer makes of a token sequence, as if a model had sampled it:
// the text it sends and how the choice ends. With a grammar, the grammar's mask must allow
// every token in turn. For tests of tool-call families on real vocabularies, where control
// tokens, turn openers and grammars decide what reaches the text.
import * as assert from 'uvu/assert';
import type { TokenizerInfo } from '../../compiler/index.js';
import type { Vocabulary } from '../../runtime/backend/vocabulary.js';
import { grammarFromSpec, type GrammarSpec } from '../../runtime/grammar-service/grammar-spec.js';
import { RequestState, Sequence } from '../../runtime/engine/worker/sequence.js';
import { TokenCommitter } from '../../runtime/engine/worker/token-commit.js';
import { GrammarCompiler } from '../../compiler/index.js';
import { GrammarConstraint } from '../../runtime/sampling/grammar-constraint.js';
import { StopStringMatcher, Utf8StreamDecoder } from '../../runtime/sampling/index.js';

export interface CommitOptions {
  /** The prompt, with special tokens (default: one token, id 1). */
  prompt?: string;
  /** The template's generation prompt: its control tokens open a turn, as admission.ts finds them. */
  turnOpener?: string;
  /** The request's grammar, if any. */
  spec?: GrammarSpec;
  /** The request's skip_special_tokens (default true). */
  skipSpecialTokens?: boolean;
}

export function committedText(vocab: Vocabulary, info: TokenizerInfo, ids: readonly number[], options: CommitOptions = {}): { text: string; finish: string | undefined } {
  const prompt = options.prompt === undefined ? Int32Array.of(1) : vocab.tokenize(options.prompt, { parseSpecial: true });
  const openerIds = options.turnOpener === undefined ? [] : Array.from(vocab.tokenize(options.turnOpener, { parseSpecial: true }));
  const openers = new Set(openerIds.filter((id) => vocab.isControl(id) && !vocab.isEndOfGeneration(id)));
  const state = new RequestState(1, { prompt: Array.from(prompt), maxTokens: 500, skipSpecialTokens: options.skipSpecialTokens }, prompt.length, 100_000, false, openers);
  const grammar = options.spec ? new GrammarConstraint(new GrammarCompiler(info).compile(grammarFromSpec(options.spec)), info) : undefined;
  const sequence = new Sequence(state, 0, prompt, { accept() {} } as never, new Utf8StreamDecoder(), new StopStringMatcher([]), grammar);
  const committer = new TokenCommitter(vocab);
  let text = '';
  for (const id of ids) {
    if (committer.endIfGrammarComplete(sequence)) break;
    if (grammar) {
      grammar.refresh();
      assert.ok((grammar.mask[id >>> 5]! >>> (id & 31)) & 1, `the grammar allows token ${id} ${JSON.stringify(vocab.text(id))}`);
    }
    committer.commit(sequence, { token: id } as never);
    text += sequence.pendingText;
    sequence.pendingText = '';
    if (sequence.finish) break;
  }
  committer.endIfGrammarComplete(sequence);
  return { text, finish: sequence.finish };
}
