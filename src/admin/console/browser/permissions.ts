/**
 * The admin console's permissions module: what the signed-in person may do in the realm shown,
 * as the server judges it (GET /admin/realms/{realm}/permissions, CONTRACT.md §14). A control
 * made with `data-operation` (dom.ts) for an operation refused is disabled, its reason as its
 * title. With ADMIN_TOKEN everything is allowed, and nothing is asked.
 */

export type Decision = { allowed: true } | { allowed: false; reason: string };

let decisions: Readonly<Record<string, Decision>> | undefined;

/** The decisions of the realm shown; undefined: everything allowed. */
export function usePermissions(next: Readonly<Record<string, Decision>> | undefined): void {
  decisions = next;
}

/** Why the operation is refused to the person signed in; undefined when it is allowed. */
export function refusalOf(operationId: string): string | undefined {
  const decision = decisions?.[operationId];
  return decision && !decision.allowed ? decision.reason : undefined;
}
