// The pure SHA-256 gives node:crypto's digests: artifacts cached on disk keep their names.
import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Sha256, sha256Hex } from '../../compiler/sha256.js';
import { testRandom } from '../helpers/test-random.js';

const test = suite('sha256');

test('known digests: empty, "abc", and the two-block FIPS example', () => {
  assert.is(sha256Hex(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  assert.is(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  assert.is(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'), '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1');
});

test('any length, fed in any pieces, strings as UTF-8: equal to node:crypto', () => {
  const random = testRandom(7);
  for (let length = 0; length < 300; length++) {
    const bytes = Uint8Array.from({ length: length * 3 }, () => Math.floor(random() * 256));
    const hash = new Sha256();
    for (let at = 0; at < bytes.length; ) {
      const piece = 1 + Math.floor(random() * 90);
      hash.update(bytes.subarray(at, at + piece));
      at += piece;
    }
    assert.is(hash.digestHex(), createHash('sha256').update(bytes).digest('hex'), `${bytes.length} bytes`);
  }
  const text = 'rule 0:é✓𝄞\0=' + 'x'.repeat(100);
  assert.is(new Sha256().update(text.slice(0, 9)).update(text.slice(9)).digestHex(), createHash('sha256').update(text).digest('hex'));
});

test.run();
