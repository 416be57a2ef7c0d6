// Shared by the JSON suites: the whitespace runs of a JSON text, outside its strings.
/** The runs between tokens, and whether whitespace starts or ends the text. */
export function whitespaceRuns(text: string): { leading: boolean; inner: string[]; trailing: boolean } {
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
  const leading = /^[ \t\n\r]/.test(text);
  return { leading, inner: leading ? runs.slice(1) : runs, trailing: run !== '' };
}

/** A run the default bound allows: one space, or a line break and at most `max` spaces or tabs. */
export function isBoundedRun(run: string, max = 20): boolean {
  return run === ' ' || new RegExp(`^\\r?\\n[ \\t]{0,${max}}$`).test(run);
}
