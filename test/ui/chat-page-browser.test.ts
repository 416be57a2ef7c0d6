// The web chat page in a real browser (Debian's chromium through playwright-core) against a real
// lmforge server on a loopback port with the tiny model: streaming, Escape, regenerate, the
// output-format and tools boxes, the live view, the API key, and screenshots of the layout on
// a wide screen and a phone, written to test/output/.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import type { Page, Request } from 'playwright-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { launchBrowser, type Browser } from '../helpers/browser.js';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text.js';
import { startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

// The callbacks given to page.evaluate run in the page. The project compiles without the DOM
// library (its fetch and stream types clash with Node's), so the page globals they use are declared here.
declare const document: any, window: any, sessionStorage: any, Image: any;
declare function getComputedStyle(element: unknown): { color: string; backgroundColor: string };
declare function requestAnimationFrame(callback: () => void): number;

const OUTPUT = fileURLToPath(new URL('../output/', import.meta.url));

const test = suite<{ s: TinyServer; browser: Browser; page: Page; requested: string[]; errors: string[]; setup?: unknown }>('chat page in chromium');

/**
 * uvu drops an error thrown by a `before` hook (its suite only shows 0 of N passed), so set-up
 * keeps it, and each test fails with it: a missing chromium is then named in every failure.
 */
function failWithSetupError(context: { setup?: unknown }): void {
  if (context.setup !== undefined) throw context.setup;
}

test.before(async (context) => {
  try {
    await startPage(context);
  } catch (error) {
    context.setup = error;
  }
});
test.before.each(failWithSetupError);

async function startPage(context: { s: TinyServer; browser: Browser; page: Page; requested: string[]; errors: string[] }): Promise<void> {
  // Launched first: a missing chromium fails here, before a model is loaded for nothing.
  context.browser = await launchBrowser();
  // Room for a long reply, so that one can be stopped while it streams.
  context.s = await startTinyServer({ engine: { overrides: { context_window_size: 2048 } } });
  context.page = await context.browser.context.newPage();
  context.requested = [];
  context.errors = [];
  context.page.on('request', (request) => context.requested.push(request.url()));
  context.page.on('pageerror', (error) => context.errors.push(error.message));
  context.page.on('console', (message) => {
    if (message.type() === 'error') context.errors.push(message.text());
  });
  await context.page.goto(`${context.s.url}/`);
  await context.page.waitForFunction((id) => document.getElementById('model')!.textContent === id, TINY_MODEL_ID);
}

test.after(async ({ s, browser }) => {
  await browser?.close();
  await s?.close();
});

const lastReply = '#conversation > li:last-child.assistant';

async function setField(page: Page, name: string, value: string): Promise<void> {
  await page.fill(`#settings-form [name="${name}"]`, value);
}

/** Types a message and presses Enter; resolves to the request the page sent. */
async function send(page: Page, text: string): Promise<Request> {
  const sent = page.waitForRequest((request) => request.url().endsWith('/v1/chat/completions'));
  await page.fill('#prompt', text);
  await page.press('#prompt', 'Enter');
  return sent;
}

const replyState = (page: Page, state: string) => page.waitForSelector(`${lastReply}[data-state="${state}"]`);
const replyText = (page: Page) => page.textContent(`${lastReply} .body`).then((text) => text ?? '');
const replyStats = (page: Page) => page.textContent(`${lastReply} .reply-stats`).then((text) => text ?? '');

async function metrics(s: TinyServer) {
  return parsePrometheusText(await (await fetch(`${s.url}/metrics`)).text());
}

test('the page comes from this server alone, shows the model, and draws a reply while it streams', async ({ s, page, requested }) => {
  await setField(page, 'max_tokens', '300');
  await setField(page, 'temperature', '0');
  await setField(page, 'seed', '1');
  // The reply's text length at every frame the browser draws while the reply streams.
  await page.evaluate((selector) => {
    const seen: number[] = [];
    window.seen = seen;
    const sample = () => {
      const reply = document.querySelector(selector);
      if (reply?.dataset.state === 'streaming') seen.push(reply.querySelector('.body')!.textContent!.length);
      if (reply?.dataset.state !== 'done') requestAnimationFrame(sample);
    };
    requestAnimationFrame(sample);
  }, lastReply);
  // Shift+Enter is a new line, not a send.
  await page.fill('#prompt', 'line one');
  await page.press('#prompt', 'Shift+Enter');
  await page.type('#prompt', 'two');
  assert.is(await page.inputValue('#prompt'), 'line one\ntwo');
  assert.is(await page.locator('#conversation > li').count(), 0);
  const request = await send(page, 'Hello there');
  assert.is(await page.inputValue('#prompt'), '', 'Enter sent the message');
  assert.is(await page.textContent('#conversation > li.user .body'), 'Hello there');
  const body = request.postDataJSON();
  assert.equal(body.messages, [{ role: 'user', content: 'Hello there' }]);
  assert.equal({ model: body.model, stream: body.stream, max_tokens: body.max_tokens, temperature: body.temperature, seed: body.seed }, { model: TINY_MODEL_ID, stream: true, max_tokens: 300, temperature: 0, seed: 1 });
  await replyState(page, 'done');
  const seen: number[] = await page.evaluate(() => window.seen);
  const shown = [...new Set(seen.filter((length) => length > 0))];
  assert.ok(shown.length >= 3, `frames drawn while streaming showed the reply at several lengths: ${JSON.stringify(shown)}`);
  assert.equal(shown, [...shown].sort((a, b) => a - b), 'and it only grew');
  assert.ok((await replyText(page)).length > shown[0]!);
  // The figures: tokens from the usage chunk (the tiny model's random weights do not pick its end token).
  assert.match(await replyStats(page), /^300 tokens · \d+\.\d tokens\/s · TTFT \d+ ms · length$/);
  const origin = new URL(s.url).origin;
  assert.equal(requested.filter((url) => new URL(url).origin !== origin && !url.startsWith('data:')), [], 'no request leaves the server');
});

test('Escape stops a reply mid-stream; the server cancels it; Send is back', async ({ s, page }) => {
  const cancelled = () => metrics(s).then((m) => sampleValue(m, 'lmforge_choices_finished_total', { finish_reason: 'cancelled' }));
  const before = await cancelled();
  await setField(page, 'max_tokens', '1500');
  await send(page, 'Tell me a long story');
  assert.ok(await page.isVisible('#stop'), 'Stop shows while a reply streams');
  assert.not.ok(await page.isVisible('#send'));
  // The first text drawn, then Escape: the reply has most of its 1,500 tokens still to come.
  await page.waitForFunction((selector) => Number(document.querySelector(selector)?.dataset.updates) >= 1, lastReply);
  await page.keyboard.press('Escape');
  await replyState(page, 'stopped');
  assert.match(await replyStats(page), /stopped$/);
  const drawn = Number(await page.getAttribute(`${lastReply} .reply-stats`, 'data-tokens'));
  assert.ok(drawn >= 1 && drawn < 1500, `stopped after ${drawn} tokens`);
  assert.ok(await page.isVisible('#send'));
  assert.not.ok(await page.isVisible('#stop'));
  // The server counts a cancelled choice once the closed connection reaches it.
  for (let i = 0; (await cancelled()) === before; i++) assert.ok(i < 1000, 'the server never cancelled the stopped reply');
  assert.is(await cancelled(), before + 1);
});

test('Regenerate asks again for the last reply and replaces it', async ({ page }) => {
  const replies = await page.locator('#conversation > li.assistant').count();
  await setField(page, 'max_tokens', '8');
  const sent = page.waitForRequest((request) => request.url().endsWith('/v1/chat/completions'));
  await page.click('#regenerate');
  const body = (await sent).postDataJSON();
  assert.equal(body.messages.at(-1), { role: 'user', content: 'Tell me a long story' }, 'the stopped reply is not sent back');
  assert.is(body.messages.length, 3, 'user, assistant, user');
  await replyState(page, 'done');
  assert.is(await page.locator('#conversation > li.assistant').count(), replies, 'replaced, not added');
  assert.match(await replyStats(page), /^8 tokens · .* · length$/);
});

test('the JSON schema box sends response_format, and the reply follows the schema', async ({ page }) => {
  const schema = { type: 'object', properties: { n: { type: 'integer', minimum: 0, maximum: 99 }, ok: { type: 'boolean' } }, required: ['n', 'ok'], additionalProperties: false };
  await page.click('#clear');
  await setField(page, 'max_tokens', '200');
  await page.selectOption('#settings-form [name="format"]', 'json_schema');
  assert.ok(await page.isVisible('#settings-form [name="format_body"]'), 'the box shows for a schema');
  await setField(page, 'format_body', JSON.stringify(schema, null, 2));
  const body = (await send(page, 'Give me a number')).postDataJSON();
  assert.equal(body.response_format, { type: 'json_schema', json_schema: { name: 'page_schema', schema, strict: true } });
  await replyState(page, 'done');
  const value = JSON.parse(await replyText(page));
  assert.ok(new Ajv().validate(schema, value), JSON.stringify(value));
  assert.match(await replyStats(page), /· stop$/, 'the grammar ended the reply');
});

test('a reply slow to draw is drawn less often than it is read, and whole at its end', async ({ page }) => {
  await setField(page, 'max_tokens', '300');
  await page.selectOption('#settings-form [name="format"]', 'json_schema');
  // Letters and spaces only, so that the drawn text is the streamed text, no Markdown in it.
  await setField(page, 'format_body', JSON.stringify({ type: 'string', pattern: '^[a-z ]+$' }));
  // Every read of the page's clock comes 40 ms later: each draw seems to take 40 ms, so the next one rests 160.
  await page.evaluate(() => {
    const real = performance.now.bind(performance);
    let skew = 0;
    window.realNow = real;
    performance.now = () => real() + (skew += 40);
  });
  const answered = page.waitForResponse((response) => response.url().endsWith('/v1/chat/completions'));
  await send(page, 'Write some letters');
  await replyState(page, 'done');
  await page.evaluate(() => {
    performance.now = window.realNow;
  });
  const events = (await (await answered).text()).split('\n').filter((line) => line.startsWith('data: {'));
  const streamed = events.map((line) => JSON.parse(line.slice(6)).choices[0]?.delta?.content ?? '').join('');
  assert.ok(streamed.length > 20, streamed);
  assert.is(await replyText(page), streamed, 'the last pieces are drawn when the reply ends');
  const { reads, draws } = await page.evaluate((selector) => {
    const reply = document.querySelector(selector);
    return { reads: Number(reply.dataset.reads), draws: Number(reply.dataset.updates) };
  }, lastReply);
  assert.ok(draws < reads, `${draws} draws for ${reads} reads`);
});

test('a structural tag forcing Markdown: the reply is drawn as Markdown, its HTML escaped', async ({ page }) => {
  const text = '## Plan\n\n**bold** and `x <b>y</b>`\n\n- one\n- two\n\n```js\nconst a = "<script>";\n```';
  await page.selectOption('#settings-form [name="format"]', 'structural_tag');
  await setField(page, 'format_body', JSON.stringify({ type: 'const_string', value: text }));
  const body = (await send(page, 'Write a plan')).postDataJSON();
  assert.equal(body.response_format, { type: 'structural_tag', format: { type: 'const_string', value: text } });
  await replyState(page, 'done');
  const html = await page.innerHTML(`${lastReply} .body`);
  assert.is(
    html,
    '<h2>Plan</h2>\n<p><strong>bold</strong> and <code>x &lt;b&gt;y&lt;/b&gt;</code></p>\n<ul><li>one</li><li>two</li></ul>\n<pre><code class="language-js" data-language="js">const a = "&lt;script&gt;";</code></pre>',
  );
  assert.is(await page.locator(`${lastReply} script, ${lastReply} b`).count(), 0, 'no element from the text itself');
});

test('tools with tool_choice required: the reply shows the call', async ({ page }) => {
  await page.selectOption('#settings-form [name="format"]', 'none');
  assert.not.ok(await page.isVisible('#settings-form [name="format_body"]'));
  const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string', maxLength: 12 } }, required: ['city'], additionalProperties: false } } }];
  await setField(page, 'tools', JSON.stringify(tools));
  await page.selectOption('#settings-form [name="tool_choice"]', 'required');
  try {
    const body = (await send(page, 'Weather in Paris?')).postDataJSON();
    assert.equal({ tools: body.tools, tool_choice: body.tool_choice }, { tools, tool_choice: 'required' });
    await replyState(page, 'done');
    // The tiny model may write text before the call, and run out of tokens after it: only the call is checked.
    const call = await page.textContent(`${lastReply} .tool-call[data-tool="get_weather"] code`);
    const args = /^get_weather\((.*)\)$/s.exec(call ?? '')?.[1];
    assert.ok(args !== undefined, `a call: ${call}`);
    assert.type(JSON.parse(args).city, 'string');
    // The page runs no tools; the conversation goes on with each call answered as not run.
    await page.selectOption('#settings-form [name="tool_choice"]', 'none');
    const next = (await send(page, 'Thanks')).postDataJSON() as { messages: { role: string; tool_calls?: { id: string }[] }[] };
    const at = next.messages.findLastIndex((message) => message.tool_calls !== undefined);
    const calls = next.messages[at]!.tool_calls!;
    assert.ok(calls.length >= 1);
    assert.equal(next.messages.slice(at + 1), [...calls.map((c) => ({ role: 'tool', tool_call_id: c.id, content: 'Not run: the chat page runs no tools.' })), { role: 'user', content: 'Thanks' }]);
    await replyState(page, 'done');
  } finally {
    await setField(page, 'tools', '');
    await page.selectOption('#settings-form [name="tool_choice"]', 'auto');
  }
});

test('a bad schema box is refused in the page, naming the box; nothing is sent', async ({ page, requested }) => {
  await page.selectOption('#settings-form [name="format"]', 'json_schema');
  await setField(page, 'format_body', '{"type": ');
  const before = requested.length;
  const replies = await page.locator('#conversation > li.assistant').count();
  const asked = await page.locator('#conversation > li.user').count();
  await page.fill('#prompt', 'x');
  await page.press('#prompt', 'Enter');
  await page.waitForSelector('#settings-error:not([hidden])');
  assert.match((await page.textContent('#settings-error'))!, /^The schema is not JSON/);
  assert.is(await page.locator('#conversation > li.assistant').count(), replies);
  assert.not.ok(requested.slice(before).some((url) => url.endsWith('/v1/chat/completions')));
  // The message is not lost, and not left in the history to be sent twice.
  assert.is(await page.inputValue('#prompt'), 'x', 'the message stays in the composer');
  assert.is(await page.locator('#conversation > li.user').count(), asked, 'no turn was added');
  await page.selectOption('#settings-form [name="format"]', 'none');
  await setField(page, 'max_tokens', '4');
  const body = (await send(page, 'y')).postDataJSON();
  assert.not.ok(body.messages.some((message: { content: string }) => message.content === 'x'), 'the refused message was never part of the history');
  await replyState(page, 'done');
});

test('a reply the server refused is retried by Regenerate once the setting is fixed, replacing its error', async ({ page, errors }) => {
  const logged = errors.length;
  await setField(page, 'temperature', '5');
  await send(page, 'Say hi');
  await replyState(page, 'error');
  assert.match(await replyText(page).then(async (text) => text + (await page.textContent(lastReply))), /temperature/);
  assert.ok(await page.isEnabled('#regenerate'), 'a failed reply can be asked for again');
  const replies = await page.locator('#conversation > li.assistant').count();
  await setField(page, 'temperature', '0.7');
  const sent = page.waitForRequest((request) => request.url().endsWith('/v1/chat/completions'));
  await page.click('#regenerate');
  const body = (await sent).postDataJSON();
  assert.equal(body.messages.at(-1), { role: 'user', content: 'Say hi' });
  assert.is(body.messages.filter((message: { content: string }) => message.content === 'Say hi').length, 1, 'asked once, not twice');
  await replyState(page, 'done');
  assert.is(await page.locator('#conversation > li.assistant').count(), replies, 'the error is replaced');
  // The browser logs the refused request's 400; it was asked for.
  errors.splice(logged);
});

test('the live view shows what /metrics says: KV cells and prefix-cache hits', async ({ s, page }) => {
  const m = await metrics(s);
  const total = sampleValue(m, 'lmforge_kv_cells_total');
  const hits = sampleValue(m, 'lmforge_cached_prompt_tokens_total') / sampleValue(m, 'lmforge_prompt_tokens_total');
  assert.is(total, 2048);
  // Nothing runs now, so these stay as they are until the page's next scrape shows them.
  await page.waitForFunction(({ total, hits }) => {
    const text = (stat: string) => document.querySelector(`[data-stat="${stat}"]`)!.textContent;
    const percent = Math.round(100 * hits);
    return text('running') === 'running 0' && text('kv') === `KV 0% of ${total}` && (text('cache') === `cache hits ${percent}%` || text('cache') === `cache hits ${(100 * hits).toFixed(1)}%`);
  }, { total, hits });
});

test('a number the browser cannot read (Temperature "1e") is named in the page, not dropped; nothing is sent', async ({ page, requested }) => {
  await page.fill('#settings-form [name="temperature"]', '');
  await page.type('#settings-form [name="temperature"]', '1e');
  const before = requested.length;
  await page.fill('#prompt', 'x');
  await page.press('#prompt', 'Enter');
  await page.waitForSelector('#settings-error:not([hidden])');
  assert.is(await page.textContent('#settings-error'), 'Temperature is not a number.');
  assert.not.ok(requested.slice(before).some((url) => url.endsWith('/v1/chat/completions')));
  assert.is(await page.inputValue('#prompt'), 'x', 'the message stays in the composer');
  await setField(page, 'temperature', '0.7');
  await page.fill('#prompt', '');
});

test('a server that cannot be reached is said in words, not as the browser\'s "Failed to fetch"', async ({ page, errors }) => {
  const logged = errors.length;
  await page.route('**/v1/chat/completions', (route) => route.abort('connectionfailed'));
  try {
    await setField(page, 'max_tokens', '4');
    await send(page, 'Anyone there?');
    await replyState(page, 'error');
    const shown = (await page.textContent(lastReply)) ?? '';
    assert.match(shown, /The server could not be reached: it may be stopped or restarting/);
    assert.not.match(shown, /Failed to fetch/);
  } finally {
    await page.unroute('**/v1/chat/completions');
  }
  // Regenerate, with the server back, replaces the error.
  await page.click('#regenerate');
  await replyState(page, 'done');
  // The browser logs the failed request; it was asked for.
  errors.splice(logged);
});

test('the live view while the server is gone and back: KV – without a total, not "of 0"; the model name read again', async ({ page, errors }) => {
  const logged = errors.length;
  const live = (value: string) => page.waitForFunction((value) => document.getElementById('server-stats')!.dataset.live === value, value, { timeout: 10_000 });
  await page.route('**/metrics', (route) => route.abort('connectionfailed'));
  await live('false');
  // Back, as a server still loading its engine (no KV figures yet), with another model.
  await page.route('**/v1/models', (route) => route.fulfill({ contentType: 'application/json', body: JSON.stringify({ object: 'list', data: [{ id: 'another-model', object: 'model', created: 0, owned_by: 'lmforge' }] }) }));
  await page.unroute('**/metrics');
  await page.route('**/metrics', (route) => route.fulfill({ contentType: 'text/plain', body: 'lmforge_requests_running 0\nlmforge_requests_waiting 0\n' }));
  await live('true');
  await page.waitForFunction(() => document.getElementById('model')!.textContent === 'another-model', undefined, { timeout: 10_000 });
  assert.is(await page.textContent('[data-stat="kv"]'), 'KV –');
  // And back to the real server: its model again.
  await page.unroute('**/v1/models');
  await page.unroute('**/metrics');
  await page.route('**/metrics', (route) => route.abort('connectionfailed'));
  await live('false');
  await page.unroute('**/metrics');
  await page.waitForFunction((id) => document.getElementById('model')!.textContent === id, TINY_MODEL_ID, { timeout: 10_000 });
  await page.waitForFunction(() => /^KV \d+% of \d+$/.test(document.querySelector('[data-stat="kv"]')!.textContent), undefined, { timeout: 10_000 });
  errors.splice(logged);
});

test('buttons keep their text readable (WCAG AA, 4.5:1) in the light and the dark scheme', async ({ page }) => {
  try {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      const ratio = await page.evaluate(() => {
        const rgb = (css: string) => css.match(/\d+(\.\d+)?/g)!.slice(0, 3).map(Number);
        const luminance = (css: string) => {
          const [r, g, b] = rgb(css).map((c) => c / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
          return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
        };
        const style = getComputedStyle(document.getElementById('send')!);
        const [a, b] = [luminance(style.color), luminance(style.backgroundColor)].sort((x, y) => y - x);
        return (a! + 0.05) / (b! + 0.05);
      });
      assert.ok(ratio >= 4.5, `${colorScheme}: Send's text against its background ${ratio.toFixed(2)}:1`);
    }
  } finally {
    await page.emulateMedia({ colorScheme: null });
  }
});

/** Pixel figures of a PNG, decoded by the browser itself on a blank page (no image library needed). */
async function pixelStats(browser: Browser, png: Buffer, boxes: Record<string, { x: number; y: number; width: number; height: number }>) {
  const blank = await browser.context.newPage();
  try {
    return await blank.evaluate(
      async ({ data, boxes }) => {
        const image = new Image();
        image.src = `data:image/png;base64,${data}`;
        await image.decode();
        const canvas = document.createElement('canvas');
        canvas.width = image.width;
        canvas.height = image.height;
        const context = canvas.getContext('2d')!;
        context.drawImage(image, 0, 0);
        const pixels = context.getImageData(0, 0, image.width, image.height).data;
        const key = (i: number) => (pixels[i]! << 16) | (pixels[i + 1]! << 8) | pixels[i + 2]!;
        const counts = new Map<number, number>();
        for (let i = 0; i < pixels.length; i += 4) counts.set(key(i), (counts.get(key(i)) ?? 0) + 1);
        const background = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0];
        /** The share of a box's pixels that differ from the page background: text, borders, fields. */
        const ink = (box: { x: number; y: number; width: number; height: number }) => {
          let inked = 0;
          for (let y = Math.floor(box.y); y < box.y + box.height; y++) {
            for (let x = Math.floor(box.x); x < box.x + box.width; x++) if (key((y * image.width + x) * 4) !== background) inked++;
          }
          return inked / (box.width * box.height);
        };
        return { width: image.width, height: image.height, colours: counts.size, ink: Object.fromEntries(Object.entries(boxes).map(([name, box]) => [name, ink(box)])) };
      },
      { data: png.toString('base64'), boxes },
    );
  } finally {
    await blank.close();
  }
}

async function box(page: Page, selector: string) {
  const found = await page.locator(selector).boundingBox();
  assert.ok(found, `${selector} is shown`);
  return found;
}

const inside = (inner: { x: number; y: number; width: number; height: number }, outer: { width: number; height: number }) =>
  inner.x >= 0 && inner.y >= 0 && inner.x + inner.width <= outer.width + 0.5 && inner.y + inner.height <= outer.height + 0.5;

test('screenshot, wide screen: header on top, conversation above the composer, settings beside them; each region drawn', async ({ browser, page }) => {
  await page.click('#clear');
  await setField(page, 'max_tokens', '40');
  await send(page, 'Hello, **world**');
  await replyState(page, 'done');
  // A second reply forced to Markdown with code, so the picture shows the renderer.
  await page.selectOption('#settings-form [name="format"]', 'structural_tag');
  await setField(page, 'format_body', JSON.stringify({ type: 'const_string', value: 'Sum a list in **JavaScript**:\n\n```js\nconst sum = (xs) => xs.reduce((a, b) => a + b, 0);\n```\n\n- `reduce` folds\n- `0` is the start' }));
  await setField(page, 'max_tokens', '120');
  await send(page, 'How do I sum a list?');
  await replyState(page, 'done');
  await page.selectOption('#settings-form [name="format"]', 'none');
  assert.is(await page.locator(`${lastReply} pre code.language-js`).count(), 1);
  const viewport = page.viewportSize()!;
  const header = await box(page, '.topbar');
  const reply = await box(page, lastReply);
  const composer = await box(page, '#composer');
  const settings = await box(page, '#settings');
  for (const [name, b] of Object.entries({ header, reply, composer, settings })) assert.ok(inside(b, viewport), `${name} within the viewport: ${JSON.stringify(b)}`);
  assert.ok(header.y + header.height <= reply.y, 'the header is above the conversation');
  assert.ok(reply.y + reply.height <= composer.y, 'the reply is above the composer');
  assert.ok(composer.x + composer.width <= settings.x + 0.5, 'the settings are to the right of the chat');
  assert.ok(settings.height > viewport.height / 2, 'the settings run down the side');
  mkdirSync(OUTPUT, { recursive: true });
  const png = await page.screenshot({ path: `${OUTPUT}chat-page.png` });
  const stats = await pixelStats(browser, png, { header, reply, composer, settings });
  assert.is(stats.width, viewport.width);
  assert.is(stats.height, viewport.height);
  assert.ok(stats.colours > 50, `not blank: ${stats.colours} colours (text is anti-aliased)`);
  // Where the layout says a region is, the screenshot has something drawn: text, borders, fields.
  for (const [name, share] of Object.entries(stats.ink)) assert.ok(share > 0.01 && share < 0.99, `${name}: ${(share * 100).toFixed(1)}% of its pixels drawn`);
  writeFileSync(`${OUTPUT}chat-page.json`, `${JSON.stringify({ viewport, regions: { header, reply, composer, settings }, ...stats }, null, 2)}\n`);
});

test('screenshot, phone: one column, settings folded under the composer, nothing wider than the screen', async ({ browser, page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    await page.reload();
    await page.waitForFunction((id) => document.getElementById('model')!.textContent === id, TINY_MODEL_ID);
    assert.is(await page.getAttribute('#settings', 'open'), null, 'settings start folded on a phone');
    await page.click('#settings > summary');
    await setField(page, 'max_tokens', '24');
    await page.click('#settings > summary');
    assert.not.ok(await page.isVisible('#settings-form'), 'folded again');
    await send(page, 'Hi from a phone');
    await replyState(page, 'done');
    const viewport = page.viewportSize()!;
    const composer = await box(page, '#composer');
    const settings = await box(page, '#settings');
    const reply = await box(page, lastReply);
    assert.ok(composer.y + composer.height <= settings.y + 0.5, 'the settings fold under the composer');
    assert.ok(inside(composer, viewport) && inside(settings, viewport) && inside(reply, viewport), 'all of it on screen');
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scrolling');
    const sendButton = await box(page, '#send');
    assert.ok(sendButton.height >= 36, 'a button a finger can press');
    const png = await page.screenshot({ path: `${OUTPUT}chat-page-phone.png` });
    const stats = await pixelStats(browser, png, { composer, reply });
    assert.equal([stats.width, stats.height], [390, 844]);
    for (const [name, share] of Object.entries(stats.ink)) assert.ok(share > 0.01 && share < 0.99, `${name}: ${(share * 100).toFixed(1)}% drawn`);
  } finally {
    await page.setViewportSize({ width: 1280, height: 800 });
  }
});

test('no error in the page the whole time', ({ errors }) => {
  assert.equal(errors, []);
});

test.run();

const keyed = suite<{ s: TinyServer; browser: Browser; setup?: unknown }>('chat page with --api-key');

keyed.before(async (context) => {
  try {
    context.browser = await launchBrowser();
    context.s = await startTinyServer({ server: { apiKeys: ['page-secret'] } });
  } catch (error) {
    context.setup = error;
  }
});
keyed.before.each(failWithSetupError);

keyed.after(async ({ s, browser }) => {
  await browser?.close();
  await s?.close();
});

keyed('the page asks for the key, keeps it in sessionStorage, and sends it as Bearer', async ({ s, browser }) => {
  const page = await browser.context.newPage();
  await page.goto(`${s.url}/`);
  await page.waitForSelector('#key-dialog[open]');
  await page.fill('#key-input', 'wrong');
  await page.press('#key-input', 'Enter');
  await page.waitForSelector('#key-dialog[open] #key-error:not([hidden])');
  assert.is(await page.textContent('#key-error'), 'That key was refused.');
  await page.fill('#key-input', 'page-secret');
  await page.press('#key-input', 'Enter');
  await page.waitForFunction((id) => document.getElementById('model')!.textContent === id, TINY_MODEL_ID);
  assert.not.ok(await page.isVisible('#key-dialog'));
  assert.is(await page.evaluate(() => sessionStorage.getItem('lmforge.apiKey')), 'page-secret');
  await page.fill('#settings-form [name="max_tokens"]', '4');
  const request = await send(page, 'hi');
  assert.is(request.headers()['authorization'], 'Bearer page-secret');
  await replyState(page, 'done');
  assert.match(await replyStats(page), /^4 tokens/);
  // The live view reads /metrics with the key too.
  await page.waitForSelector('#server-stats[data-live="true"]');
  await page.close();
});

keyed.run();
