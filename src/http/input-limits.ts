import type { z } from 'zod';

/**
 * JSON bodies nest no deeper than this (docs/configuration.md "Input limits"): client metadata and JWK sets
 * nest four deep, user claims a few more. Deeper input is refused before a schema, which walks
 * it recursively, or the database, which has its own depth limit, sees it.
 */
export const MAX_JSON_DEPTH = 32;

/** Whether `value` nests deeper than `max` objects and arrays; walked without recursion. */
export function nestsDeeperThan(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= max) return true;
    for (const child of Object.values(current)) stack.push({ value: child, depth: depth + 1 });
  }
  return false;
}

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
