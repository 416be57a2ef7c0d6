// The draw, as an exponential race: token i gets the key E_i / m_i with E_i ~ Exp(1), and the
// smallest key wins. That picks i with probability m_i / Σm, exactly as a categorical draw, but
// the winner depends on the masses only through comparisons of keys: a change of 1e-7 in the
// logits (which llama.cpp produces when the same sequence shares a batch with different
// neighbours) flips it only if the two best keys lie that close, about once in ten million draws.
// An inverse-CDF walk instead flips whenever the random point lands near any boundary of the
// running sum, which for a flat 50k-token distribution happens every few dozen tokens.
//
// The noise E_i comes from a counter-based hash of (token id, two words drawn once per step from
// the sequence's own SeededRng), so a seed replays the same race whatever the batch held.

/** A uniform in (0, 1) from a token id and the step's two key words (murmur3's finaliser). */
export function raceUniform(id: number, key1: number, key2: number): number {
  let h = Math.imul(id ^ key1, 0x9e3779b1) ^ key2;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return ((h >>> 0) + 0.5) / 4294967296;
}

/**
 * The winning token id, weighted by `mass` (and among the ids set in `kept`, when given); -1 when
 * every candidate has mass 0. Since -ln(u) ≥ 1 - u, a token whose lower bound (1 - u) / m cannot
 * beat the best key is skipped without a logarithm: most of a long tail costs one hash.
 */
export function exponentialRace(mass: Float64Array, size: number, key1: number, key2: number, kept?: Uint32Array): number {
  let best = Infinity;
  let winner = -1;
  for (let id = 0; id < size; id++) {
    const m = mass[id]!;
    if (!(m > 0)) continue;
    if (kept !== undefined && ((kept[id >>> 5]! >>> (id & 31)) & 1) === 0) continue;
    const u = raceUniform(id, key1, key2);
    if ((1 - u) / m >= best) continue;
    const key = -Math.log(u) / m;
    if (key < best) {
      best = key;
      winner = id;
    }
  }
  return winner;
}
