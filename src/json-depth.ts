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
