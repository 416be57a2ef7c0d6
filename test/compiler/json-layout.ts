// Shared by the JSON suites: the whitespace runs of a JSON text, outside its strings.
/** The runs between tokens (and before the value), and whether whitespace ends the text. */
export function whitespaceRuns(text: string): { inner: string[]; trailing: boolean } {
  const runs: string[] = [];
  let inString = false;
  let run = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      run += c;
      continue;
    }
    if (run !== '') runs.push(run);
    run = '';
    if (c === '"') inString = true;
  }
  return { inner: runs, trailing: run !== '' };
}
