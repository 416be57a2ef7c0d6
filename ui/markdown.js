// A small Markdown renderer for replies: fenced code, inline code, headings, lists, quotes,
// rules, bold, italics and paragraphs. Everything the model wrote is escaped first; the only
// HTML in the result is the fixed tags added here, with no attributes taken from the text but
// a code block's language, reduced to letters, digits, `-` and `_`. Links stay text: a reply
// cannot make the page fetch or navigate anywhere. An unclosed fence (a reply still streaming)
// is code up to the end.

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const escapeHtml = (text) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]);

/**
 * The inline marks, each an opener, the shortest text to its closer, and the closer; the text
 * between is already escaped and marked by the rules before. A second branch takes an opener
 * that no closer follows together with the rest of its line, as text: every later opener on
 * the line lacks a closer too (its closers would be this one's), and without that branch each
 * of them searched to the line's end again, quadratic on a line of unclosed `**` (a 40 KB line
 * of them took a second, on every streamed read of a reply).
 */
export const INLINE_MARKS = [
  { pattern: /\*\*(?=\S)(?<inner>.+?)(?<=\S)\*\*|\*\*(?=\S).*/g, tag: 'strong' },
  { pattern: /__(?=\S)(?<inner>.+?)(?<=\S)__|__(?=\S).*/g, tag: 'strong' },
  { pattern: /(?<before>^|[^*\w])\*(?=[^\s*])(?<inner>.+?)(?<=[^\s*])\*(?!\w)|(?:^|[^*\w])\*(?=[^\s*]).*/g, tag: 'em' },
  { pattern: /(?<before>^|[^_\w])_(?=[^\s_])(?<inner>.+?)(?<=[^\s_])_(?!\w)|(?:^|[^_\w])_(?=[^\s_]).*/g, tag: 'em' },
  { pattern: /~~(?=\S)(?<inner>.+?)(?<=\S)~~|~~(?=\S).*/g, tag: 'del' },
];

/** `text` with one inline mark drawn: each closed pair's inner text in the mark's tag, after the character before the opener where the rule reads it. */
const markInline = (text, { pattern, tag }) =>
  text.replace(pattern, (match, ...args) => {
    const { before = '', inner } = args.at(-1);
    return inner === undefined ? match : `${before}<${tag}>${inner}</${tag}>`;
  });

/** Inline marks on one line of text: `code`, **bold**, *italic* / _italic_, ~~struck~~. */
export function renderInline(text) {
  // Code spans first, so nothing inside them is read as a mark.
  return text
    .split(/(`+[^`]*?`+)/)
    .map((part, i) => {
      if (i % 2 === 1) return `<code>${escapeHtml(part.replace(/^`+|`+$/g, ''))}</code>`;
      return INLINE_MARKS.reduce(markInline, escapeHtml(part));
    })
    .join('');
}

const FENCE = /^\s*(`{3,}|~{3,})\s*([\w+#.-]*)/;
const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^\s*([-*_])(\s*\1){2,}\s*$/;
const BULLET = /^\s*[-*+]\s+(.*)$/;
const NUMBERED = /^\s*(\d{1,9})[.)]\s+(.*)$/;
const QUOTE = /^\s*>\s?(.*)$/;

/** Quotes nest this deep at most: each level is a call, and a reply of thousands of `>` overflowed the stack. */
const MAX_QUOTE_DEPTH = 16;

/** Whether a line closes a fence opened by `marker`: the marker's character, as many or more, and nothing else (CommonMark). */
const closesFence = (line, marker) => line.trim().startsWith(marker) && line.trim().replaceAll(marker[0], '') === '';

/** The HTML of a Markdown text. */
export function renderMarkdown(text, depth = 0) {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const out = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[1];
      const language = fence[2].replace(/[^\w-]/g, '');
      const code = [];
      for (i++; i < lines.length && !closesFence(lines[i], marker); i++) code.push(lines[i]);
      i++; // the closing fence (or the end)
      const attribute = language ? ` class="language-${language}" data-language="${language}"` : '';
      out.push(`<pre><code${attribute}>${escapeHtml(code.join('\n'))}</code></pre>`);
      continue;
    }
    if (line.trim() === '') {
      i++;
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      const level = heading[1].length;
      out.push(`<h${level}>${renderInline(heading[2])}</h${level}>`);
      i++;
      continue;
    }
    if (RULE.test(line)) {
      out.push('<hr>');
      i++;
      continue;
    }
    const list = BULLET.test(line) ? { tag: 'ul', item: BULLET } : NUMBERED.test(line) ? { tag: 'ol', item: NUMBERED } : undefined;
    if (list) {
      const items = [];
      const first = list.tag === 'ol' ? Number(NUMBERED.exec(line)[1]) : 1;
      for (; i < lines.length && list.item.exec(lines[i]); i++) items.push(`<li>${renderInline(list.item.exec(lines[i]).at(-1))}</li>`);
      out.push(`<${list.tag}${first !== 1 ? ` start="${first}"` : ''}>${items.join('')}</${list.tag}>`);
      continue;
    }
    if (QUOTE.test(line) && depth < MAX_QUOTE_DEPTH) {
      const quoted = [];
      for (; i < lines.length && QUOTE.test(lines[i]); i++) quoted.push(QUOTE.exec(lines[i])[1]);
      out.push(`<blockquote>${renderMarkdown(quoted.join('\n'), depth + 1)}</blockquote>`);
      continue;
    }
    // A paragraph runs to a blank line or the start of another block.
    const paragraph = [];
    for (; i < lines.length && lines[i].trim() !== '' && !startsBlock(lines[i]); i++) paragraph.push(renderInline(lines[i]));
    if (paragraph.length === 0) paragraph.push(renderInline(lines[i++]));
    out.push(`<p>${paragraph.join('<br>')}</p>`);
  }
  return out.join('\n');
}

const startsBlock = (line) => FENCE.test(line) || HEADING.test(line) || RULE.test(line) || BULLET.test(line) || NUMBERED.test(line) || QUOTE.test(line);
