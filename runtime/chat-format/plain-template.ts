// A plain-text transcript for models with no chat template and no turn tokens of their own,
// most often base models. A base model has learnt documents, not turns, and a
// transcript ("User: …", "Assistant: …", a blank line between turns) is a document it has seen
// and continues: it writes the assistant's line and then, often, the next speaker's. The
// markers are ordinary text, so they tokenize as text in every vocabulary and never as control
// tokens, and PLAIN_TURN_STOPS ends generation where the model starts the next turn.
export const plainTemplate = [
  "{%- for message in messages %}",
  "{%- if message.role == 'system' %}{{- 'System: ' }}",
  "{%- elif message.role == 'assistant' %}{{- 'Assistant: ' }}",
  "{%- else %}{{- 'User: ' }}{%- endif %}",
  "{{- (message.content | trim) + '\\n\\n' }}",
  "{%- endfor %}",
  "{%- if add_generation_prompt %}{{- 'Assistant:' }}{%- endif %}",
].join('\n');

/**
 * plain's turn opens with "Assistant:" and no space, so the model writes its first word with
 * the space in front (" The", one token, as in every transcript it has read). That space parts
 * the label from the answer; it is not the answer's, and is left out of the content.
 */
export function dropsAnswerLeadingSpace(templateSource: string | undefined): boolean {
  return templateSource === plainTemplate;
}

/**
 * A new turn at the start of a line, after a blank line or a single line break: the longer
 * form comes first in the text, so the stop cuts before both line breaks (see stop-string-matcher.ts).
 */
export const PLAIN_TURN_STOPS = ['\n\nUser:', '\nUser:', '\n\nAssistant:', '\nAssistant:', '\n\nSystem:', '\nSystem:'] as const;
