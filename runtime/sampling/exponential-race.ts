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
 * beat the best key is skipped without a logarithm: most of a long tail costs one hash. With
 * `kept` (top_p's nucleus, often a few dozen ids of a 50k vocabulary) only its set bits are
 * visited, lowest id first as in the full walk, so the winner is the same.
 */
export function exponentialRace(mass: Float64Array, size: number, key1: number, key2: number, kept?: Uint32Array): number {
  const race = { best: Infinity, winner: -1 };
  if (kept === undefined) {
    for (let id = 0; id < size; id++) enter(race, id, mass[id]!, key1, key2);
    return race.winner;
  }
  const words = (size + 31) >>> 5;
  for (let word = 0; word < words; word++) {
    let bits = kept[word]!;
    while (bits !== 0) {
      const low = bits & -bits;
      const id = (word << 5) + 31 - Math.clz32(low);
      bits ^= low;
      if (id < size) enter(race, id, mass[id]!, key1, key2);
    }
  }
  return race.winner;
}

/** Token `id` of mass `m` enters the race: it leads when its key is the smallest so far (ties: the earlier id). */
function enter(race: { best: number; winner: number }, id: number, m: number, key1: number, key2: number): void {
  if (!(m > 0)) return;
  const u = raceUniform(id, key1, key2);
  if ((1 - u) / m >= race.best) return;
  const key = -Math.log(u) / m;
  if (key < race.best) {
    race.best = key;
    race.winner = id;
  }
}
