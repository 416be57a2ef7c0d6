// GET /v1/models and GET /v1/models/{model}: the served name is listed (never a path), the
// model object can be retrieved by that name or by an alias (the path the model came from),
// and an unknown model is a 404 envelope naming `model`.
import { Ajv } from 'ajv';
import OpenAI from 'openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tinyModelPath } from '../../fixtures/paths.js';
import { modelSchema } from '../../runtime/api/api-schemas.js';
import { assertEnvelope, okRequest } from '../helpers/api-errors.js';
import { post, startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

const validModel = new Ajv({ strict: false }).compile(modelSchema);

const models = suite<{ s: TinyServer }>('/v1/models');
models.before(async (context) => {
  context.s = await startTinyServer({ server: { modelAliases: [tinyModelPath, 'org/tiny-gpt2'] } });
});
models.after(async (context) => {
  await context.s.close();
});

models('the list holds the served name only, as an OpenAI model object', async ({ s }) => {
  const list = await s.client.models.list();
  assert.is(list.data.length, 1);
  const model = list.data[0]!;
  assert.ok(validModel(model), JSON.stringify(validModel.errors));
  assert.is(model.id, TINY_MODEL_ID);
  assert.is(model.object, 'model');
  assert.is(model.owned_by, 'lmforge');
});

models('retrieve by the served name or an alias gives the same object; the id is the served name', async ({ s }) => {
  const [listed] = (await s.client.models.list()).data;
  for (const name of [TINY_MODEL_ID, tinyModelPath, 'org/tiny-gpt2']) {
    const model = await s.client.models.retrieve(name);
    assert.ok(validModel(model), JSON.stringify(validModel.errors));
    assert.equal({ ...model }, { ...listed }, name);
  }
  // A name sent with its slash unencoded reaches the same endpoint.
  const raw = await fetch(`${s.url}/v1/models/org/tiny-gpt2`);
  assert.is(raw.status, 200);
  assert.is(((await raw.json()) as { id: string }).id, TINY_MODEL_ID);
});

models('an unknown model is a NotFoundError: 404 with param model and code model_not_found', async ({ s }) => {
  try {
    await s.client.models.retrieve('gpt-4o');
    assert.unreachable('expected a 404');
  } catch (error) {
    assert.instance(error, OpenAI.NotFoundError);
    const notFound = error as InstanceType<typeof OpenAI.NotFoundError>;
    assert.is(notFound.param, 'model');
    assert.is(notFound.code, 'model_not_found');
  }
  const response = await fetch(`${s.url}/v1/models/org%2Fno-such-model`);
  const error = assertEnvelope({ status: response.status, text: '', json: await response.json() }, 404);
  assert.is(error.param, 'model');
  assert.match(error.message, /'org\/no-such-model' does not exist; this server serves 'tiny-gpt2'/);
  assert.is(response.headers.get('content-type'), 'application/json');
});

models('completions take the served name or an alias, and answer with the served name', async ({ s }) => {
  for (const name of [TINY_MODEL_ID, tinyModelPath]) {
    const response = await post(`${s.url}/v1/chat/completions`, { ...okRequest, model: name });
    assert.is(response.status, 200, response.text);
    assert.is(response.json.model, TINY_MODEL_ID);
  }
  const unknown = await post(`${s.url}/v1/chat/completions`, { ...okRequest, model: 'tiny-gpt' });
  assert.is(assertEnvelope(unknown, 404).param, 'model');
});

models('POST on a model is a 405 that allows GET (and HEAD); /openapi.json describes the path parameter', async ({ s }) => {
  const response = await post(`${s.url}/v1/models/${TINY_MODEL_ID}`, {});
  assertEnvelope(response, 405);
  assert.is(response.headers.get('allow'), 'GET, HEAD');
  const openapi = (await (await fetch(`${s.url}/openapi.json`)).json()) as any;
  const retrieve = openapi.paths['/v1/models/{model}'].get;
  assert.equal(retrieve.parameters, [{ name: 'model', in: 'path', required: true, schema: { type: 'string' } }]);
  assert.equal(retrieve.responses['200'].content['application/json'].schema, JSON.parse(JSON.stringify(modelSchema)));
});

models.run();
