// Gemma's turn format, for Gemma models whose GGUF carries no template: each turn is
// `<start_of_turn>ROLE\n…<end_of_turn>\n`, the assistant's role is written `model`, and every
// other role is `user`. Gemma has no system turn: the system text opens the first user turn.
// No tool syntax: tools reach the model through a system block (tool-prompt.ts).
export const gemmaTemplate = [
  "{{- bos_token }}",
  "{%- set ns = namespace(system='', turns=messages) %}",
  "{%- if messages | length > 0 and messages[0].role == 'system' %}",
  "{%- set ns.system = (messages[0].content | trim) + '\\n\\n' %}",
  "{%- set ns.turns = messages[1:] %}",
  "{%- endif %}",
  "{%- if ns.system and (ns.turns | length == 0 or ns.turns[0].role == 'assistant') %}",
  "{{- '<start_of_turn>user\\n' + (ns.system | trim) + '<end_of_turn>\\n' }}",
  "{%- set ns.system = '' %}",
  "{%- endif %}",
  "{%- for message in ns.turns %}",
  "{{- '<start_of_turn>' + ('model' if message.role == 'assistant' else 'user') + '\\n' }}",
  "{%- if loop.first %}{{- ns.system }}{%- endif %}",
  "{{- (message.content | trim) + '<end_of_turn>\\n' }}",
  "{%- endfor %}",
  "{%- if add_generation_prompt %}{{- '<start_of_turn>model\\n' }}{%- endif %}",
].join('\n');
