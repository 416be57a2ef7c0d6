// The page's Markdown renderer (ui/markdown.js, plain JavaScript for the browser, pure, so it
// runs here as it is): what it draws, and that no text makes it emit a tag or attribute of its own.
import fc from 'fast-check';
import { pathToFileURL } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CHAT_PAGE_DIR } from '../../runtime/server/chat-page.js';

// Imported by URL: the page's files are JavaScript without declarations.
type InlineMark = { pattern: RegExp; tag: string };
const { renderMarkdown, escapeHtml, INLINE_MARKS }: { renderMarkdown(text: string): string; escapeHtml(text: string): string; INLINE_MARKS: InlineMark[] } = await import(pathToFileURL(`${CHAT_PAGE_DIR}markdown.js`).href);

const test = suite('chat page markdown');

test('blocks: headings, paragraphs with line breaks, lists, quotes, rules, fenced code', () => {
  assert.is(renderMarkdown('# Title\n\nline one\nline two'), '<h1>Title</h1>\n<p>line one<br>line two</p>');
  assert.is(renderMarkdown('- a\n* b\n+ c'), '<ul><li>a</li><li>b</li><li>c</li></ul>');
  assert.is(renderMarkdown('3. c\n4) d'), '<ol start="3"><li>c</li><li>d</li></ol>');
  assert.is(renderMarkdown('> quoted **text**\n> more'), '<blockquote><p>quoted <strong>text</strong><br>more</p></blockquote>');
  assert.is(renderMarkdown('a\n\n---\n\nb'), '<p>a</p>\n<hr>\n<p>b</p>');
  assert.is(renderMarkdown('```python\nprint("<hi>")\n\n  x = 1\n```\nafter'), '<pre><code class="language-python" data-language="python">print(&quot;&lt;hi&gt;&quot;)\n\n  x = 1</code></pre>\n<p>after</p>');
  assert.is(renderMarkdown('text\n```\ncode'), '<p>text</p>\n<pre><code>code</code></pre>', 'a fence still open (a streaming reply) is code to the end');
  assert.is(renderMarkdown('~~~\n```\n~~~'), '<pre><code>```</code></pre>', 'a fence closes only with its own marker');
  assert.is(renderMarkdown('```\na\n```python\nb\n```'), '<pre><code>a\n```python\nb</code></pre>', 'a line with an info string opens, never closes (CommonMark)');
});

test('quotes nest 16 deep at most: thousands of > (degenerate output) are drawn, not a stack overflow', () => {
  const html = renderMarkdown(`${'>'.repeat(20000)} x`);
  assert.is(html.match(/<blockquote>/g)!.length, 16);
  assert.ok(html.includes('&gt;'.repeat(100)), 'the rest is text');
});

test('inline: code spans keep their text, bold, italics, strike; words with _ and sums with * stay text', () => {
  assert.is(renderMarkdown('**b** __b__ *i* _i_ ~~s~~'), '<p><strong>b</strong> <strong>b</strong> <em>i</em> <em>i</em> <del>s</del></p>');
  assert.is(renderMarkdown('use `a **not bold** <b>` here'), '<p>use <code>a **not bold** &lt;b&gt;</code> here</p>');
  assert.is(renderMarkdown('snake_case_name and 2*3*4 and a * b'), '<p>snake_case_name and 2*3*4 and a * b</p>');
});

test('HTML in the text is shown as text, never as markup', () => {
  assert.is(renderMarkdown('<img src=x onerror="alert(1)">'), '<p>&lt;img src=x onerror=&quot;alert(1)&quot;&gt;</p>');
  assert.is(renderMarkdown('```js"><script>x</script>\ncode\n```'), '<pre><code class="language-js" data-language="js">code</code></pre>');
  assert.is(renderMarkdown('[click](javascript:alert(1))'), '<p>[click](javascript:alert(1))</p>', 'links stay text');
  assert.is(escapeHtml(`<>&"'`), '&lt;&gt;&amp;&quot;&#39;');
});

// The inline marks as they were before an unclosed opener took the rest of its line (each
// later opener then searched the line again: quadratic). What they drew is what is drawn now.
const inlineBefore = (text: string): string =>
  text
    .split(/(`+[^`]*?`+)/)
    .map((part, i) => {
      if (i % 2 === 1) return `<code>${escapeHtml(part.replace(/^`+|`+$/g, ''))}</code>`;
      return escapeHtml(part)
        .replace(/\*\*(?=\S)(.+?)(?<=\S)\*\*/g, '<strong>$1</strong>')
        .replace(/__(?=\S)(.+?)(?<=\S)__/g, '<strong>$1</strong>')
        .replace(/(^|[^*\w])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?!\w)/g, '$1<em>$2</em>')
        .replace(/(^|[^_\w])_(?=[^\s_])(.+?)(?<=[^\s_])_(?!\w)/g, '$1<em>$2</em>')
        .replace(/~~(?=\S)(.+?)(?<=\S)~~/g, '<del>$1</del>');
    })
    .join('');

test('inline marks draw what the quadratic rules drew, on any line (\\u2028 and \\u2029 end a rule\'s line too)', () => {
  const pieces = fc.constantFrom('*', '**', '***', '_', '__', '~~', '~', '`', '``', ' ', 'a', 'b c', '1', '<', '&', '"', '$1', '\u2028', '\u2029', '\t');
  fc.assert(
    fc.property(fc.array(pieces, { maxLength: 30 }).map((parts) => parts.join('')), (line) => {
      assert.is(renderMarkdown(`x ${line}`), `<p>${inlineBefore(`x ${line}`)}</p>`, JSON.stringify(line));
    }),
    { numRuns: 5000, seed: 7 },
  );
});

test('an opener no closer follows takes the rest of its line in one match, so no later opener searches the line again', () => {
  const openers = ['**', '__', '*', '_', '~~'];
  assert.is(INLINE_MARKS.length, openers.length);
  INLINE_MARKS.forEach(({ pattern }, i) => {
    const line = `${openers[i]}a `.repeat(1000);
    const text = `${line}\u2028${line}`;
    const ends = [...text.matchAll(pattern)].map((match) => match.index + match[0].length);
    assert.equal(ends, [line.length, text.length], `${openers[i]}: one match to each line's end`);
  });
});

test('a long line of unclosed marks (a degenerate reply) is its escaped text', () => {
  for (const unit of ['**a ', '*a ', ' _a', '__a ', '~~a ', '**<b> ']) {
    const line = `x${unit.repeat(10000)}`;
    assert.is(renderMarkdown(line), `<p>${escapeHtml(line)}</p>`, unit);
  }
});

const TAGS = new Set(['p', 'br', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'li', 'blockquote', 'hr', 'pre', 'code', 'strong', 'em', 'del']);

test('for any text, the only markup is the renderer\'s own tags, with no attribute the text could steer', () => {
  const pieces = fc.constantFrom('<', '>', '&', '"', "'", '`', '```', '~~~', '*', '**', '_', '~~', '#', '# ', '- ', '1. ', '> ', '---', '\n', '\n\n', ' ', 'a', 'script', 'onerror=', '=', '/', 'javascript:', '<script>', '</code>', '&lt;');
  fc.assert(
    fc.property(fc.array(pieces, { maxLength: 40 }).map((parts) => parts.join('')), (text) => {
      const html = renderMarkdown(text);
      for (const [, tag, attributes] of html.matchAll(/<\/?([a-z0-9]+)([^>]*)>/g)) {
        assert.ok(TAGS.has(tag!), `tag ${tag} from ${JSON.stringify(text)}`);
        // Only a code block's language (letters, digits, - and _) and a list's start number.
        assert.match(attributes!, /^(| class="language-[\w-]+" data-language="[\w-]+"| start="\d+")$/, `attributes ${attributes} from ${JSON.stringify(text)}`);
      }
      // Outside tags, no raw < > " ' survives.
      assert.not.match(html.replace(/<\/?[a-z0-9]+[^>]*>/g, ''), /[<>"']/, JSON.stringify(text));
    }),
    { numRuns: 2000, seed: 16 },
  );
});

test.run();
