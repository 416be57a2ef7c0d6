// JSON text whose OrderedObjects keep their keys in the order given (legacy top_logprobs, most
// likely first), everything else exactly as JSON.stringify writes it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { jsonText, OrderedObject } from '../../runtime/api/ordered-json.js';

const test = suite('ordered JSON');

test('keys in the order given, integer-like ones too; the rest as JSON.stringify', () => {
  const value = { a: [new OrderedObject([['5', -0.1], ['4', -2], ['12', -3], ['__proto__', -4], ['x"\n', -5]])], b: 'text', n: null };
  assert.is(jsonText(value), '{"a":[{"5":-0.1,"4":-2,"12":-3,"__proto__":-4,"x\\"\\n":-5}],"b":"text","n":null}');
  const plain = { z: 1, 2: 'two', s: ['\u0000', 'é'] };
  assert.is(jsonText(plain), JSON.stringify(plain));
});

test('nested and several objects; text that looks like the mark stays text', () => {
  const inner = new OrderedObject([['9', 1], ['1', 2]]);
  const value = [new OrderedObject([['b', inner], ['a', [inner]]]), '\u0000not a mark:0', new OrderedObject([])];
  assert.is(jsonText(value), '[{"b":{"9":1,"1":2},"a":[{"9":1,"1":2}]},"\\u0000not a mark:0",{}]');
  assert.equal(JSON.parse(jsonText(value))[1], '\u0000not a mark:0');
});

test('outside jsonText an OrderedObject is written as the plain object (its keys in JavaScript\'s order)', () => {
  assert.is(JSON.stringify({ top: new OrderedObject([['5', -1], ['4', -2]]) }), '{"top":{"4":-2,"5":-1}}');
  // And jsonText is left ready after a value JSON cannot write.
  assert.throws(() => jsonText({ n: 1n, top: new OrderedObject([['a', 1]]) }));
  assert.is(JSON.stringify(new OrderedObject([['a', 1]])), '{"a":1}');
});

test.run();
