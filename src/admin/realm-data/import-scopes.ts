import { BUILTIN_SCOPES } from '../../records/scope.js';
import type { Scope } from '../../store/scopes.js';
import { scopeView } from '../scopes.js';
import type { ScopeEntry } from './document.js';
import { type PlanContext, SectionPlanner, type SectionPlan, refuseDuplicates } from './plan.js';
import { sameJson } from './same.js';

const BUILTIN = new Set(BUILTIN_SCOPES.map((scope) => scope.name));

/** A scope as the document holds it: as the admin API shows it, `claims` only when it maps some. */
export const scopeEntry = (scope: Scope): ScopeEntry => scopeView(scope);

/** What the document says of a scope, compared with what it is: no `claims` or `descriptions` is none. */
const described = (scope: ScopeEntry) => ({ description: scope.description, descriptions: scope.descriptions ?? {}, claims: scope.claims ?? [] });

/**
 * Puts the document's scopes that are new or differ, with the claims they map (none when the
 * entry names none); with prune, deletes those it leaves out, but never a built-in one. The scope names the realm has afterwards come with the plan.
 */
export async function planScopes(ctx: PlanContext, entries: readonly ScopeEntry[]): Promise<{ plan: SectionPlan; names: Set<string> }> {
  refuseDuplicates('scopes', entries, (entry) => entry.name, 'the same scope');
  const current = new Map((await ctx.tx.scopes.list(ctx.realm)).map((scope) => [scope.name, scope]));
  const planner = new SectionPlanner();
  const names = new Set(current.keys());
  for (const entry of entries) {
    const existing = current.get(entry.name);
    names.add(entry.name);
    const write = async (tx: Parameters<SectionPlan['apply']>[0]) => void (await tx.scopes.put(ctx.realm, entry.name, entry.description, entry.claims ?? [], entry.descriptions ?? {}));
    if (!existing) planner.create(entry.name, write);
    else if (!sameJson(described(scopeEntry(existing)), described(entry))) planner.change(entry.name, write);
    else planner.unchanged();
  }
  if (ctx.prune) {
    const named = new Set(entries.map((entry) => entry.name));
    for (const name of [...current.keys()].filter((name) => !named.has(name) && !BUILTIN.has(name))) {
      names.delete(name);
      planner.delete(name, async (tx) => void (await tx.scopes.delete(ctx.realm, name)));
    }
  }
  return { plan: planner.plan(), names };
}
