// Llama 3's header format, for Llama 3 models whose GGUF carries no template: each turn is
// `<|start_header_id|>ROLE<|end_header_id|>\n\n…<|eot_id|>`, with tool results under Llama 3.1's
// `ipython` role (which also tells tool-format-detect.ts the calls are Llama's JSON form).
export const llama3Template = [
  "{{- bos_token }}",
  "{%- for message in messages %}",
  "{{- '<|start_header_id|>' + ('ipython' if message.role == 'tool' else message.role) + '<|end_header_id|>\\n\\n' }}",
  "{{- (message.content | trim) + '<|eot_id|>' }}",
  "{%- endfor %}",
  "{%- if add_generation_prompt %}{{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{%- endif %}",
].join('\n');
