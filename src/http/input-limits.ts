import type { z } from 'zod';

/** Characters an error description never carries: controls, separators, lone surrogates. */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text for an error description: printable, and cut at `max` characters. */
export function printable(text: string, max: number): string {
  const cut = text.length > max ? `${text.slice(0, max)}…` : text;
  return cut.replace(UNPRINTABLE, '?');
}

/**
 * Each problem of a schema's answer, cut short: a description names what is wrong, it does not
 * echo the input (zod names an unknown key as it was sent).
 */
export function briefProblems(issues: readonly z.core.$ZodIssue[], most = 5): string {
  const problems = issues.slice(0, most).map((issue) => printable(`${issue.path.join('.') || 'body'}: ${issue.message}`, 160));
  return issues.length > most ? `${problems.join('; ')}; and ${issues.length - most} more` : problems.join('; ');
}
