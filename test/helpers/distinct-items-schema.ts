// A schema of arrays whose items must differ but that no grammar can keep distinct (free
// strings under a pattern, a range of integers: compiler/unique-items-guard.ts holds them),
// tight enough that a model sampling at random would repeat an item without the guard.
export const DISTINCT_ITEMS_SCHEMA = {
  type: 'object',
  properties: {
    codes: { type: 'array', items: { type: 'string', pattern: '^[ab]{1,2}$' }, uniqueItems: true, minItems: 3 },
    nums: { type: 'array', items: { type: 'integer', minimum: 0, maximum: 9 }, uniqueItems: true, minItems: 3 },
  },
  required: ['codes', 'nums'],
  additionalProperties: false,
};
