// Loads @mlc-ai/web-xgrammar (xgrammar 0.1.27 compiled to WASM) in Node. Its bundle is a UMD
// script in a "type": "module" package: as ESM it finds neither `require` nor `__filename`
// (which its Emscripten loader uses outside browsers) and, with no `exports` object, it
// registers itself as `globalThis.xgrammar`. Providing the two globals before importing it is
// enough; the WASM then runs in Node as it does in a browser.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

// The package's own types describe its classes; only the parts the tests use are named here.
export interface WebXgrammar {
  TokenizerInfo: { createTokenizerInfo(vocab: string[], type: string, prependSpace: boolean, vocabSize: number, stop: number[]): Promise<unknown> };
  GrammarCompiler: { createGrammarCompiler(info: unknown): Promise<WebCompiler> };
  GrammarMatcher: { createGrammarMatcher(compiled: unknown): Promise<WebMatcher> };
}
export interface WebCompiler {
  compileGrammar(ebnf: string): Promise<unknown>;
  compileJSONSchema(schema: string, anyWhitespace: boolean, indent: number): Promise<unknown>;
}
export interface WebMatcher {
  getNextTokenBitmask(): Promise<Int32Array>;
  acceptToken(id: number): boolean;
  isTerminated(): boolean;
}

let loaded: Promise<WebXgrammar> | undefined;

export function loadWebXgrammar(): Promise<WebXgrammar> {
  loaded ??= (async () => {
    const g = globalThis as Record<string, unknown>;
    g.require ??= createRequire(import.meta.url);
    g.__filename ??= fileURLToPath(new URL('../../node_modules/@mlc-ai/web-xgrammar/lib/index.js', import.meta.url));
    await import('@mlc-ai/web-xgrammar');
    return g.xgrammar as WebXgrammar;
  })();
  return loaded;
}
