// Token-level IR (Token, ExcludeToken, TokenTagDispatch) compiles to token edges for the
// vocabulary-aware compiler; text can never pass them.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar, GrammarCompiler, GrammarError, type Expr, type GrammarIR } from '../../compiler/index.js';
import { EDGE_EXCLUDE_TOKEN, EDGE_RULE, EDGE_TOKEN } from '../../compiler/fsm/edges.js';
import { accepts } from './helpers.js';

const test = suite('token-edges');
const lit = (s: string): Expr => ({ kind: 'bytes', bytes: new TextEncoder().encode(s) });
const rule = (name: string, body: Expr) => ({ name, body, lookahead: null, exactLookahead: false });

test('Token and ExcludeToken become token edges with sorted, distinct id sets', () => {
  const ir: GrammarIR = {
    root: 0,
    rules: [rule('root', { kind: 'choice', items: [{ kind: 'seq', items: [{ kind: 'token', ids: [5] }, lit('!')] }, lit('abc'), { kind: 'excludeToken', ids: [9, 3, 9] }] })],
  };
  const compiled = new GrammarCompiler().compile(Grammar.fromIR(ir));
  const fsm = compiled.fsm;
  const sets = [...fsm.edgeKind.keys()].filter((e) => fsm.edgeKind[e] === EDGE_TOKEN || fsm.edgeKind[e] === EDGE_EXCLUDE_TOKEN).map((e) => {
    const s = fsm.edgeAux[e]!;
    return [fsm.edgeKind[e], [...fsm.tokenIds.subarray(fsm.tokenSetStart[s]!, fsm.tokenSetStart[s + 1]!)]];
  });
  assert.equal(sets.sort(), [[EDGE_EXCLUDE_TOKEN, [3, 9]], [EDGE_TOKEN, [5]]].sort());
  assert.ok(fsm.stateScan[fsm.ruleStart[0]!]! & 2, 'the start state can scan tokens');
  const ok = accepts(Grammar.fromIR(ir));
  assert.ok(ok('abc'));
  assert.not.ok(ok('!'), 'the token edge is not text');
});

test('case 23 shape: token dispatch compiles; its trigger cannot be typed as text', () => {
  const ir: GrammarIR = {
    root: 0,
    rules: [rule('root', { kind: 'tokenDispatch', tags: [{ token: 7, rule: 1 }], loop: false, excludes: [11] }), rule('x', lit('x'))],
  };
  const compiled = new GrammarCompiler().compile(Grammar.fromIR(ir));
  const fsm = compiled.fsm;
  const kinds = [...fsm.edgeKind];
  assert.ok(kinds.includes(EDGE_TOKEN) && kinds.includes(EDGE_EXCLUDE_TOKEN) && kinds.includes(EDGE_RULE));
  const ok = accepts(Grammar.fromIR(ir));
  assert.ok(ok(''), 'no tokens at all is allowed');
  assert.not.ok(ok('<|tool|>x'));
});

test('fromIR checks rule references', () => {
  assert.throws(() => Grammar.fromIR({ root: 0, rules: [rule('root', { kind: 'ref', rule: 3 })] }), (e: unknown) => e instanceof GrammarError && /rule 3/.test(e.message));
  assert.throws(() => Grammar.fromIR({ root: 1, rules: [rule('root', lit('a'))] }), (e: unknown) => e instanceof GrammarError);
});

test.run();
