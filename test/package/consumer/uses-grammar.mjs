// Run with plain Node in a scratch project that installed the packed tarball (see
// packed-package.test.ts): lmforge/grammar and lmforge/grammar/node as a user imports them.
// Usage: node uses-grammar.mjs MODEL.gguf   (prints one JSON line of findings)
import { Grammar, GrammarCompiler, GrammarError, GrammarMatcher } from 'lmforge/grammar';
import { completeMasksInWorkers, tokenizerInfoFromGGUF } from 'lmforge/grammar/node';

const schema = { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] };
const compiled = new GrammarCompiler().compile(Grammar.fromJSONSchema(schema));
const accepts = (text) => {
  const matcher = new GrammarMatcher(compiled);
  return matcher.acceptString(text) && matcher.isCompleted();
};
let regexError = null;
try {
  Grammar.fromRegex('a(');
} catch (error) {
  regexError = error instanceof GrammarError ? error.location : String(error);
}

// Token masks for a real vocabulary, completed on worker threads started from the built files.
const info = await tokenizerInfoFromGGUF(process.argv[2]);
const digits = new GrammarCompiler(info).compile(Grammar.fromRegex('[0-9]{1,3}'));
await completeMasksInWorkers(digits, { threads: 2 });
const matcher = new GrammarMatcher(digits);
const mask = new Uint32Array(Math.ceil(info.vocabSize / 32));
matcher.fillNextTokenBitmask(mask);
let allowed = 0;
for (let id = 0; id < info.vocabSize; id++) if (mask[id >>> 5] & (1 << (id & 31))) allowed++;

console.log(JSON.stringify({
  valid: accepts('{"city": "Paris", "days": 3}'),
  missingCity: accepts('{"days": 3}'),
  notJson: accepts('Paris'),
  regexError,
  vocabSize: info.vocabSize,
  firstTokenChoices: allowed,
}));
