// One line of a model report: what was checked, how it went, and on a failure or a warning
// what to do about it. `lmforge compile` prints them as text or JSON.
export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface CheckLine {
  /** The area checked: gguf, architecture, vocabulary, template, tools, reasoning, context, memory. */
  check: string;
  status: CheckStatus;
  message: string;
  /** What to do, on a warning or a failure. */
  fix?: string;
}

export const ok = (check: string, message: string): CheckLine => ({ check, status: 'ok', message });
export const warn = (check: string, message: string, fix?: string): CheckLine => ({ check, status: 'warn', message, ...(fix ? { fix } : {}) });
export const fail = (check: string, message: string, fix: string): CheckLine => ({ check, status: 'fail', message, fix });

/** `ok   template: ...`, `FAIL vocabulary: ... (fix: ...)`: one line each, whatever the message held. */
export function formatCheckLine(line: CheckLine): string {
  const label = line.status === 'ok' ? 'ok  ' : line.status === 'warn' ? 'warn' : 'FAIL';
  const text = `${label} ${line.check}: ${line.message}${line.fix ? ` (fix: ${line.fix})` : ''}`;
  return text.replace(/\s*\n\s*/g, ' ');
}
