// The conversation on screen: one list item per message. A reply is redrawn as its deltas
// arrive (Markdown, thinking, tool calls) and ends with its figures: tokens, tokens per second
// and time to first token. Its `data-state` (streaming, done, stopped, error) says where it is.
import { escapeHtml, renderMarkdown } from './markdown.js';

const list = () => document.getElementById('conversation');

function item(role) {
  const li = document.createElement('li');
  li.className = `message ${role}`;
  li.dataset.role = role;
  const label = document.createElement('span');
  label.className = 'who';
  label.textContent = role === 'user' ? 'You' : 'Model';
  const body = document.createElement('div');
  body.className = 'body';
  li.append(label, body);
  list().append(li);
  document.getElementById('empty-note').hidden = true;
  return li;
}

export function showUserMessage(text) {
  const li = item('user');
  li.querySelector('.body').textContent = text; // a user's text is shown as typed
  li.scrollIntoView({ block: 'end' });
}

export function clearConversation() {
  list().replaceChildren();
  document.getElementById('empty-note').hidden = false;
}

/** Removes the last reply shown (before regenerating it). */
export function removeLastReply() {
  const replies = list().querySelectorAll('li.assistant');
  replies[replies.length - 1]?.remove();
}

/** `name(arguments)` of a tool call; arguments arrive as an object or, as OpenAI sends them, JSON text. */
function toolCallHtml(call) {
  const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
  return `<div class="tool-call" data-tool="${escapeHtml(call.name)}"><span class="tool-label">tool call</span> <code>${escapeHtml(call.name)}(${escapeHtml(args)})</code></div>`;
}

/**
 * A draw waits until this many times its own drawing time has passed since the last one, so
 * that drawing a long reply (the whole of it, every time) takes at most a fifth of the page's
 * time however fast its pieces arrive; a short reply draws on every read.
 */
const REST_PER_DRAW = 4;

/** A reply being received; `update` redraws it from the whole message so far. */
export class ReplyView {
  constructor() {
    this.li = item('assistant');
    this.li.dataset.state = 'streaming';
    this.li.dataset.updates = '0';
    this.li.dataset.reads = '0';
    this.body = this.li.querySelector('.body');
    this.stats = document.createElement('div');
    this.stats.className = 'reply-stats';
    this.li.append(this.stats);
    this.drawMs = 0;
    this.drawnAt = -Infinity;
    this.pending = undefined;
  }

  /** The message so far (the same object, grown): drawn now, or once the last draw has rested. */
  update(message) {
    this.li.dataset.reads = String(Number(this.li.dataset.reads) + 1);
    const waiting = this.pending !== undefined;
    this.pending = message;
    if (waiting) return;
    const wait = this.drawnAt + REST_PER_DRAW * this.drawMs - performance.now();
    if (wait <= 0) this.draw();
    else this.timer = setTimeout(() => this.draw(), wait);
  }

  draw() {
    clearTimeout(this.timer);
    const message = this.pending;
    this.pending = undefined;
    if (message === undefined) return;
    const start = performance.now();
    const parts = [];
    if (message.reasoning) parts.push(`<details class="reasoning" open><summary>thinking</summary>${renderMarkdown(message.reasoning)}</details>`);
    if (message.content) parts.push(renderMarkdown(message.content));
    for (const call of message.toolCalls) parts.push(toolCallHtml(call));
    this.body.innerHTML = parts.join('\n');
    this.li.dataset.updates = String(Number(this.li.dataset.updates) + 1);
    this.li.scrollIntoView({ block: 'end' });
    this.drawnAt = performance.now();
    this.drawMs = this.drawnAt - start;
  }

  /** `state`: done, stopped or error; `figures` as measured (see main.js). */
  finish(state, figures, error) {
    this.draw(); // what a resting draw still owes
    this.li.dataset.state = state;
    if (error) {
      const p = document.createElement('p');
      p.className = 'error';
      p.textContent = error.param ? `${error.message} (${error.param})` : error.message;
      this.body.append(p);
    }
    const bits = [];
    if (figures.tokens > 0) bits.push(`${figures.approximate ? '≈' : ''}${figures.tokens} tokens`);
    if (figures.tokensPerSecond !== undefined) bits.push(`${figures.tokensPerSecond.toFixed(1)} tokens/s`);
    if (figures.ttftMs !== undefined) bits.push(`TTFT ${Math.round(figures.ttftMs)} ms`);
    if (figures.finishReason) bits.push(figures.finishReason);
    if (state === 'stopped') bits.push('stopped');
    this.stats.textContent = bits.join(' · ');
    this.stats.dataset.tokens = String(figures.tokens);
  }
}
