// Run with plain Node in a scratch project that installed the packed tarball (see
// packed-package.test.ts): the node entry serving a model, and one chat completion over HTTP.
// Usage: node uses-server.mjs MODEL.gguf GRAMMAR_CACHE_DIR   (prints one JSON line of findings)
import { createServer, Engine, LMFORGE_VERSION } from 'lmforge';

const [model, grammarCacheDir] = process.argv.slice(2);
// One thread: the tiny model needs no more, and spinning threads crawl on shared cores.
const server = await createServer({ model, port: 0, device: 'cpu', threads: 1, overrides: { context_window_size: 256 }, grammarCacheDir });
try {
  const response = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: server.servedModelName,
      messages: [{ role: 'user', content: 'Say hi' }],
      max_tokens: 4,
      seed: 1,
      // The output format is compiled by a grammar worker: one more thread started from the built files.
      response_format: { type: 'json_object' },
    }),
  });
  const body = await response.json();
  console.log(JSON.stringify({
    version: LMFORGE_VERSION,
    engineIsExported: typeof Engine.create === 'function',
    url: server.url,
    status: response.status,
    object: body.object,
    model: body.model,
    completionTokens: body.usage?.completion_tokens,
  }));
} finally {
  await server.close();
}
