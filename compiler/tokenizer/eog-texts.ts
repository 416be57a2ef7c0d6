// The end-of-generation texts, shared by the GGUF and tokenizer.json vocabularies.
/** Texts llama.cpp treats as end of generation whatever the metadata says (llama-vocab.cpp). */
export const EOG_TEXTS = new Set([
  '<|eot_id|>', '<|im_end|>', '<|end|>', '<|return|>', '<|call|>', '<|flush|>', '<|calls|>', '<end_of_turn>',
  '<|endoftext|>', '</s>', '<|eom_id|>', '<EOT>', '_<EOT>', '[EOT]', '[EOS]', '<|end_of_text|>',
  '<end_of_utterance>', '<eos>', '<turn|>', '<|tool_response>', '<｜end▁of▁sentence｜>', '[e~[',
]);
