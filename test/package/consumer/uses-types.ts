// Type-checked (never run) in the scratch project with strict settings and skipLibCheck off:
// the declarations of every entry are whole and say what the README shows.
import { createServer, Engine, type EngineEvent, type LmforgeServer, type ServerOptions } from 'lmforge';
import { Grammar, GrammarCompiler, GrammarMatcher, type JsonSchemaOptions } from 'lmforge/grammar';
import { GrammarCache, tokenizerInfoFromGGUF } from 'lmforge/grammar/node';

export async function serve(options: ServerOptions): Promise<LmforgeServer> {
  const server = await createServer(options);
  const events: EngineEvent[] = [];
  for await (const event of server.engine.generate({ prompt: 'Hello', maxTokens: 4 })) events.push(event);
  return server;
}

export async function generate(modelPath: string): Promise<string> {
  await using engine = await Engine.create({ modelPath, device: 'cpu', mode: 'local', overrides: {} });
  let text = '';
  for await (const event of engine.generate({ prompt: 'Hello', maxTokens: 4 })) if (event.type === 'delta') text += event.text;
  return text;
}

export async function masks(modelPath: string, options: JsonSchemaOptions): Promise<boolean> {
  const compiled = new GrammarCompiler(await tokenizerInfoFromGGUF(modelPath)).compile(Grammar.fromJSONSchema({ type: 'integer' }, options));
  new GrammarCache('/tmp/grammars').write(compiled);
  return new GrammarMatcher(compiled).isCompleted();
}
