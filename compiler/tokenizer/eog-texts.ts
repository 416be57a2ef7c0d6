// llama.cpp's text-based token rules (llama-vocab.cpp), shared by the GGUF and tokenizer.json
// vocabularies so that both give the vocabulary the server builds from llama.cpp.
/** Texts llama.cpp treats as end of generation whatever the metadata says (llama-vocab.cpp). */
export const EOG_TEXTS = new Set([
  '<|eot_id|>', '<|im_end|>', '<|end|>', '<|return|>', '<|call|>', '<|flush|>', '<|calls|>', '<end_of_turn>',
  '<|endoftext|>', '</s>', '<|eom_id|>', '<EOT>', '_<EOT>', '[EOT]', '[EOS]', '<|end_of_text|>',
  '<end_of_utterance>', '<eos>', '<turn|>', '<|tool_response>', '<｜end▁of▁sentence｜>', '[e~[',
]);

/** gpt-oss's Harmony header tokens: llama.cpp always renders them (user-defined, plain text). */
export const RENDERED_TEXTS: readonly string[] = ['<|channel|>', '<|message|>', '<|start|>', '<|constrain|>'];

/**
 * Whether `<|end|>` is taken back out of the end-of-generation set and rendered as text: where
 * the set also holds `<|return|>` and `<|call|>` (o200k_harmony) or `<|calls|>` and `<|flush|>`
 * (Solar Open), `<|end|>` closes a message, not the turn.
 */
export function endIsText(inEog: (text: string) => boolean): boolean {
  return inEog('<|end|>') && ((inEog('<|return|>') && inEog('<|call|>')) || (inEog('<|calls|>') && inEog('<|flush|>')));
}
