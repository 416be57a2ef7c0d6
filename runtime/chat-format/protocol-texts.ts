// The literal texts the tool-call families write their protocol with (call and section markers,
// think delimiters, answer markup), from TOOL_FORMATS. Many vocabularies hold such a marker as
// one control token: llama.cpp's converter types every added token that looks like `<|…|>` or
// `<｜…｜>` as control (Kimi's <|tool_call_begin|>, DeepSeek's <｜tool▁calls▁begin｜>, Cohere's
// <|START_ACTION|> and <|END_THINKING|>). Such a token is the family's text, not stray markup:
// the engine keeps it in the output and grammars match it as text (llama.cpp's "preserved
// tokens"), else a grammar refuses the token the model writes its calls with, and without a
// grammar the thinking and the answer markup could not be told apart.
import { THINK_TAGS, TOOL_FORMATS, type ToolFormat } from './tool-formats.js';

/** Every literal a format writes (a call's opening for a placeholder name). */
function literalsOf(format: ToolFormat): string[] {
  const { section, callIndex, thinking } = format;
  return [
    format.trigger,
    ...(format.otherTriggers ?? []),
    ...(section ? [section.begin, section.end, section.separator, section.open?.text ?? '', section.close?.text ?? ''] : []),
    format.callBegin('f'),
    ...(format.callVariants?.('f') ?? []),
    format.callEnd,
    ...(callIndex ? [callIndex.after, callIndex.lead ?? ''] : []),
    ...(format.markup ?? []),
    ...(thinking ? [thinking.open, thinking.close, thinking.answerOpen ?? '', ...(thinking.answerLeads ?? [])] : []),
  ].filter((text) => text !== '');
}

const LITERALS = [THINK_TAGS.open, THINK_TAGS.close, ...Object.values(TOOL_FORMATS).flatMap(literalsOf)];

/**
 * Whether a control token with this text is part of some family's protocol: the text occurs in
 * one of their literals and looks like a marker of its own (at least three characters, not
 * made of letters, digits and spaces alone).
 */
export function isProtocolTokenText(text: string): boolean {
  return text.length >= 3 && !/^[\p{L}\p{N}\s]*$/u.test(text) && LITERALS.some((literal) => literal.includes(text));
}
