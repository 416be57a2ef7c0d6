// The chat page: sends the conversation to /v1/chat/completions as a stream, draws the reply as
// it comes, and measures it. Enter sends, Shift+Enter is a new line, Escape stops a reply.
// Stopping closes the request (the server cancels it); regenerating asks again for the last reply.
import { ApiError, servedModel, storedKey, storeKey, streamChat } from './api.js';
import { clearConversation, removeLastReply, ReplyView, showUserMessage } from './conversation.js';
import { readSettings, watchFormatChoice } from './settings.js';
import { watchServer } from './server-stats.js';

const $ = (id) => document.getElementById(id);

/** What was said so far, as the API takes it (without the system prompt, which is read at each send). */
const history = [];
let model = '';
let running; // the AbortController of the reply being received
let chatNumber = 0; // "New chat" moves it on: a reply stopped by it joins no history

function setBusy(busy) {
  $('send').hidden = busy;
  $('stop').hidden = !busy;
  // Regenerate asks again for the last reply, or retries one that failed before it wrote anything.
  $('regenerate').disabled = busy || history.length === 0;
  document.body.dataset.busy = String(busy);
}

/** Folds a chunk's delta into the message being built (content, thinking, tool calls by index). */
function addDelta(message, delta) {
  if (delta.content) message.content += delta.content;
  if (delta.reasoning_content) message.reasoning += delta.reasoning_content;
  for (const part of delta.tool_calls ?? []) {
    const call = (message.toolCalls[part.index] ??= { id: part.id, name: '', arguments: '' });
    if (part.function?.name) call.name += part.function.name;
    const args = part.function?.arguments;
    if (typeof args === 'string') call.arguments += args;
    else if (args !== undefined) call.arguments = args;
  }
}

/** The settings as request fields, or undefined with the reason shown where it can be seen (on a phone the panel scrolls). */
function checkedSettings() {
  try {
    const settings = readSettings();
    $('settings-error').hidden = true;
    return settings;
  } catch (error) {
    $('settings-error').textContent = error.message;
    $('settings-error').hidden = false;
    $('settings').open = true;
    $('settings-error').scrollIntoView({ block: 'nearest' });
    return undefined;
  }
}

/** 401: the key was refused, or none was given. */
const keyProblem = () => (storedKey() ? 'That key was refused.' : undefined);

async function reply(settings) {
  const messages = [...(settings.system ? [{ role: 'system', content: settings.system }] : []), ...history];
  const chat = chatNumber;
  const view = new ReplyView();
  const message = { content: '', reasoning: '', toolCalls: [] };
  const figures = { tokens: 0, approximate: true };
  running = new AbortController();
  setBusy(true);
  // The server was not reachable when the page loaded (or came back since): its model first.
  if (!model) await connect();
  const started = performance.now();
  let first;
  let state = 'done';
  let failure;
  try {
    for await (const chunks of streamChat({ model, messages, ...settings.request }, running.signal)) {
      let changed = false;
      for (const chunk of chunks) {
        const choice = chunk.choices[0];
        if (chunk.usage) Object.assign(figures, { tokens: chunk.usage.completion_tokens, approximate: false });
        if (!choice) continue;
        const delta = choice.delta ?? {};
        if (delta.content || delta.reasoning_content || delta.tool_calls) {
          first ??= performance.now();
          figures.tokens += figures.approximate ? 1 : 0; // until usage arrives, a content chunk is about a token
          addDelta(message, delta);
          changed = true;
        }
        if (choice.finish_reason) figures.finishReason = choice.finish_reason;
      }
      if (changed) view.update(message);
    }
  } catch (error) {
    if (running.signal.aborted) state = 'stopped';
    else {
      state = 'error';
      failure = error instanceof ApiError ? error : { message: String(error.message ?? error) };
      if (error instanceof ApiError && error.status === 401) askForKey(keyProblem());
    }
  }
  const ended = performance.now();
  if (first !== undefined) {
    figures.ttftMs = first - started;
    // From the first token to the end of the stream: the decoding rate, without the queueing and
    // prefill that TTFT holds (and counting text a parser held back, such as a tool call's).
    if (figures.tokens > 1 && ended > first) figures.tokensPerSecond = ((figures.tokens - 1) * 1000) / (ended - first);
  }
  view.finish(state, figures, failure);
  running = undefined;
  if (chat === chatNumber) remember(message, state);
  setBusy(false);
  $('prompt').focus();
}

/** The reply as the history sends it back next time (nothing for a failed request that wrote nothing). */
function remember(message, state) {
  const call = (c, i) => ({ id: c.id ?? `call_${i}`, type: 'function', function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) } });
  if (message.content || message.toolCalls.length > 0) {
    history.push({ role: 'assistant', content: message.content, ...(message.toolCalls.length > 0 ? { tool_calls: message.toolCalls.map(call) } : {}) });
  } else if (state !== 'error') {
    history.push({ role: 'assistant', content: '' });
  }
}

/**
 * The page runs no tools, but a conversation goes on only once each call has an answer (OpenAI's
 * rule, which the server keeps): the model is told, in each call's answer, that it was not run.
 */
function answerCalls() {
  const last = history.at(-1);
  for (const call of last?.role === 'assistant' ? (last.tool_calls ?? []) : []) {
    history.push({ role: 'tool', tool_call_id: call.id, content: NOT_RUN });
  }
}

const NOT_RUN = 'Not run: the chat page runs no tools.';

function send() {
  const text = $('prompt').value;
  if (running || text.trim() === '') return;
  // Settings that cannot be sent keep the message in the composer and out of the history.
  const settings = checkedSettings();
  if (!settings) return;
  $('prompt').value = '';
  answerCalls();
  history.push({ role: 'user', content: text });
  showUserMessage(text);
  void reply(settings);
}

function stop() {
  running?.abort();
}

function regenerate() {
  if (running || history.length === 0) return;
  const settings = checkedSettings();
  if (!settings) return;
  // The last reply, or the failed one that wrote nothing to the history (its bubble shows the error).
  if (history.at(-1).role === 'assistant') history.pop();
  removeLastReply();
  void reply(settings);
}

function askForKey(problem) {
  $('key-error').textContent = problem ?? '';
  $('key-error').hidden = !problem;
  $('key-button').hidden = false;
  if (!$('key-dialog').open) $('key-dialog').showModal();
  $('key-input').focus();
}

async function connect() {
  try {
    model = await servedModel();
    $('model').textContent = model;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) askForKey(keyProblem());
    else $('model').textContent = error instanceof ApiError && error.status === 0 ? 'server unreachable' : `unreachable: ${error.message}`;
  }
}

$('composer').addEventListener('submit', (event) => {
  event.preventDefault();
  send();
});
$('prompt').addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    send();
  }
});
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && running) {
    event.preventDefault();
    stop();
  }
});
$('stop').addEventListener('click', stop);
$('regenerate').addEventListener('click', regenerate);
$('clear').addEventListener('click', () => {
  stop();
  chatNumber++;
  history.length = 0;
  clearConversation();
  setBusy(false);
});
$('key-button').addEventListener('click', () => askForKey());
$('key-form').addEventListener('submit', () => {
  storeKey($('key-input').value.trim());
  $('key-input').value = '';
  void connect();
});

// Settings open beside the chat on a wide screen, folded under it on a phone.
$('settings').open = window.matchMedia('(min-width: 900px)').matches;
watchFormatChoice();
if (storedKey()) $('key-button').hidden = false;
setBusy(false);
await connect();
// A server that comes back may serve another model: its name is read again.
watchServer(() => void connect());
