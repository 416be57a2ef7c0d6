// A family's markup around the answer (Cohere's <|START_RESPONSE|>, Kimi-K3's response block,
// Harmony's final-channel header) is never content. The tool-call parser leaves it out of the
// text between calls; a choice without tools passes its answer through a MarkupFilter. Both
// withhold a trailing partial piece until it is known, so streamed pieces concatenate to the
// whole result.

/** Length of the longest proper prefix of `pattern` that `text` ends with. */
function partialSuffix(text: string, pattern: string): number {
  for (let k = Math.min(pattern.length - 1, text.length); k > 0; k--) {
    if (text.endsWith(pattern.slice(0, k))) return k;
  }
  return 0;
}

/** `text` without the markup; unless `final`, without a trailing partial piece of it either. */
export function withoutMarkup(text: string, markup: readonly string[], final: boolean): string {
  if (markup.length === 0) return text;
  let out = text;
  for (const piece of markup) out = out.split(piece).join('');
  if (final) return out;
  return out.slice(0, out.length - Math.max(0, ...markup.map((piece) => partialSuffix(out, piece))));
}

/** Incremental: text in, the new part of the answer without markup out. */
export class MarkupFilter {
  private text = '';
  private sent = 0;

  constructor(private readonly markup: readonly string[]) {}

  push(text: string): string {
    this.text += text;
    return this.update(false);
  }

  finish(): string {
    return this.update(true);
  }

  private update(final: boolean): string {
    const visible = withoutMarkup(this.text, this.markup, final);
    const piece = visible.slice(this.sent);
    this.sent = Math.max(this.sent, visible.length);
    return piece;
  }
}
