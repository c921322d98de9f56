import type { Group } from '../../store/groups.js';
import type { Role } from '../../store/roles.js';
import type { GroupEntry, RoleEntry } from './document.js';
import { type PlanContext, SectionPlanner, type SectionPlan, invalidAt, refuseDuplicates } from './plan.js';
import { sameJson } from './same.js';

/** A role as the document holds it. */
export const roleEntry = (role: Role): RoleEntry => ({ name: role.name, description: role.description });

/** A group as the document holds it: its roles in name order. */
export const groupEntry = (group: Group): GroupEntry => ({ name: group.name, description: group.description, roles: [...group.roles] });

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Puts the document's roles that are new or differ (no description: an empty one). With prune,
 * deletes those it leaves out, which takes them from every group and person, as deleting a role
 * through the admin API does. The role names the realm has afterwards come with the plan.
 */
export async function planRoles(ctx: PlanContext, entries: readonly RoleEntry[]): Promise<{ plan: SectionPlan; names: Set<string> }> {
  refuseDuplicates('roles', entries, (entry) => entry.name, 'the same role');
  const current = new Map((await ctx.tx.roles.list(ctx.realm)).map((role) => [role.name, role]));
  const planner = new SectionPlanner();
  const names = new Set(current.keys());
  for (const entry of entries) {
    const description = entry.description ?? '';
    const existing = current.get(entry.name);
    names.add(entry.name);
    const write = async (tx: Parameters<SectionPlan['apply']>[0]) => void (await tx.roles.put(ctx.realm, entry.name, description));
    if (!existing) planner.create(entry.name, write);
    else if (existing.description !== description) planner.change(entry.name, write);
    else planner.unchanged();
  }
  if (ctx.prune) {
    const named = new Set(entries.map((entry) => entry.name));
    for (const name of [...current.keys()].filter((name) => !named.has(name))) {
      names.delete(name);
      planner.delete(name, async (tx) => void (await tx.roles.delete(ctx.realm, name)));
    }
  }
  return { plan: planner.plan(), names };
}

/**
 * Puts the document's groups that are new or differ, each with exactly the roles it names (none
 * when it names none), every one a role the realm will have. With prune, deletes those it leaves
 * out: their members lose them.
 */
export async function planGroups(ctx: PlanContext, entries: readonly GroupEntry[], roles: ReadonlySet<string>): Promise<{ plan: SectionPlan; names: Set<string> }> {
  refuseDuplicates('groups', entries, (entry) => entry.name, 'the same group');
  const current = new Map((await ctx.tx.groups.list(ctx.realm)).map((group) => [group.name, group]));
  const planner = new SectionPlanner();
  const names = new Set(current.keys());
  entries.forEach((entry, index) => {
    const desired = { name: entry.name, description: entry.description ?? '', roles: [...(entry.roles ?? [])].sort(byName) };
    const missing = desired.roles.filter((role) => !roles.has(role));
    if (missing.length > 0) throw invalidAt(`groups.${index}.roles`, `no such role in the realm: ${missing.slice(0, 5).join(', ')}`);
    const existing = current.get(entry.name);
    names.add(entry.name);
    const write = async (tx: Parameters<SectionPlan['apply']>[0]) => {
      const saved = await tx.groups.put(ctx.realm, entry.name, { description: desired.description, roles: desired.roles });
      if (saved.missingRoles) throw invalidAt(`groups.${index}.roles`, `no such role in the realm: ${saved.missingRoles.slice(0, 5).join(', ')}`);
    };
    if (!existing) planner.create(entry.name, write);
    else if (!sameJson(groupEntry(existing), desired)) planner.change(entry.name, write);
    else planner.unchanged();
  });
  if (ctx.prune) {
    const named = new Set(entries.map((entry) => entry.name));
    for (const name of [...current.keys()].filter((name) => !named.has(name))) {
      names.delete(name);
      planner.delete(name, async (tx) => void (await tx.groups.delete(ctx.realm, name)));
    }
  }
  return { plan: planner.plan(), names };
}
