// exp(d) for d ≤ 0, about 2.5× faster than Math.exp in V8 (which calls out to C, while this
// inlines), accurate to a few ulp. The sampler evaluates exp once or twice per vocabulary entry
// per token, so this is most of the cost of greedy decoding with logprobs.
//
// Method (Tang's table-driven exp): d = (64q + r) · ln2/64 + y with |y| ≤ ln2/128, so
// exp(d) = 2^q · 2^(r/64) · e^y; the two powers of two come from tables and e^y from a degree-5
// Taylor polynomial, whose truncation error at |y| ≤ 0.0055 is below 4e-17. Pure IEEE arithmetic
// in a fixed order, so results are identical on every machine.

const STEPS = 64;
const STEP_POWERS = new Float64Array(STEPS); // 2^(r/64)
for (let r = 0; r < STEPS; r++) STEP_POWERS[r] = 2 ** (r / STEPS);
const NEG_POWERS = new Float64Array(1100); // 2^-q, down through the subnormals to 0
for (let q = 0; q < NEG_POWERS.length; q++) NEG_POWERS[q] = 2 ** -q;

const INV_STEP = STEPS / Math.LN2;
// ln2/64 split in two (Cody–Waite, fdlibm's ln2_hi / ln2_lo): STEP_HI has trailing zero bits so
// n · STEP_HI is exact for |n| < 2^21, and STEP_LO carries the rest of ln2 to ~2^-85.
const STEP_HI = 6.93147180369123816490e-1 / STEPS;
const STEP_LO = 1.90821492927058770002e-10 / STEPS;
// Adding 1.5 · 2^52 rounds a double to the nearest integer without a call.
const ROUND = 6755399441055744;

/** exp(d) for d ≤ 0 (larger d is wrong, not checked). NaN in, NaN out. */
export function expNonPositive(d: number): number {
  if (d < -745.2) return 0; // below the smallest subnormal; also catches -Infinity
  const nf = d * INV_STEP + ROUND - ROUND;
  const y = d - nf * STEP_HI - nf * STEP_LO;
  const n = nf | 0;
  const p = 1 + y * (1 + y * (1 / 2 + y * (1 / 6 + y * (1 / 24 + y * (1 / 120)))));
  return STEP_POWERS[n & 63]! * NEG_POWERS[0 - (n >> 6)]! * p;
}

/** Σ exp(w[i] - max) over the first `size` entries; -Infinity entries contribute 0. */
export function sumExp(w: Float64Array, size: number, max: number): number {
  let s = 0;
  for (let i = 0; i < size; i++) s += expNonPositive(w[i]! - max);
  return s;
}
