import { namedBriefly } from '../../records/scope.js';
import type { StoreTransaction } from '../../store/index.js';
import type { Resource } from '../../store/resources.js';
import { resourceView } from '../resources.js';
import { conflict } from '../validate.js';
import type { ResourceEntry } from './document.js';
import { type PlanContext, SectionPlanner, type SectionPlan, invalidAt, refuseDuplicates } from './plan.js';
import { sameJson } from './same.js';

/** A resource as the document holds it: as the admin API shows it, `name` and `scopes` only when it has them. */
export const resourceEntry = (resource: Resource): ResourceEntry => resourceView(resource);

/** A resource the realm will hold, with where the document names it (none: it stays as it is). */
export interface FinalResource {
  readonly identifier: string;
  readonly scopes: readonly string[] | undefined;
  readonly path: string | undefined;
}

/** What an entry says of a resource: a field left out (or null) is none. */
const described = (entry: ResourceEntry) => ({ name: entry.name ?? undefined, descriptions: entry.descriptions ?? undefined, scopes: entry.scopes ?? undefined });

export async function resourcesAsTheyAre(tx: StoreTransaction, realm: string): Promise<FinalResource[]> {
  return (await tx.resources.list(realm)).map((resource) => ({ identifier: resource.identifier, scopes: resource.scopes, path: undefined }));
}

/**
 * Registers the document's resources that are new or differ, each as its entry describes it (a
 * field left out: none); with prune, deletes those it leaves out. The resources the realm will
 * hold come with the plan, for the check of the scopes they name (`checkResourceScopes`).
 */
export async function planResources(ctx: PlanContext, entries: readonly ResourceEntry[]): Promise<{ plan: SectionPlan; resources: FinalResource[] }> {
  refuseDuplicates('resources', entries, (entry) => entry.identifier, 'the same identifier');
  const current = new Map((await ctx.tx.resources.list(ctx.realm)).map((resource) => [resource.identifier, resource]));
  const planner = new SectionPlanner();
  const named = new Set(entries.map((entry) => entry.identifier));
  const resources: FinalResource[] = [...current.values()]
    .filter((resource) => !ctx.prune && !named.has(resource.identifier))
    .map((resource) => ({ identifier: resource.identifier, scopes: resource.scopes, path: undefined }));
  entries.forEach((entry, index) => {
    const wanted = described(entry);
    resources.push({ identifier: entry.identifier, scopes: wanted.scopes, path: `resources.${index}` });
    const existing = current.get(entry.identifier);
    const write = async (tx: StoreTransaction) => {
      const saved = await tx.resources.put(ctx.realm, { identifier: entry.identifier, name: wanted.name ?? null, descriptions: wanted.descriptions ?? null, scopes: wanted.scopes ?? null });
      if (saved.missingScopes) throw conflict(`resources.${index}.scopes: the realm lost ${namedBriefly(saved.missingScopes)} meanwhile`);
    };
    if (!existing) planner.create(entry.identifier, write);
    else if (!sameJson(described(resourceEntry(existing)), wanted)) planner.change(entry.identifier, write);
    else planner.unchanged();
  });
  if (ctx.prune) {
    for (const identifier of [...current.keys()].filter((identifier) => !named.has(identifier))) {
      planner.delete(identifier, async (tx) => void (await tx.resources.delete(ctx.realm, identifier)));
    }
  }
  return { plan: planner.plan(), resources };
}

/** Each resource the realm will hold names only scopes it will hold (as the admin API checks them one change at a time). */
export function checkResourceScopes(resources: readonly FinalResource[], scopes: ReadonlySet<string>): void {
  for (const resource of resources) {
    const missing = (resource.scopes ?? []).filter((scope) => !scopes.has(scope));
    if (missing.length === 0) continue;
    if (resource.path) throw invalidAt(`${resource.path}.scopes`, `not defined in this realm: ${namedBriefly(missing)}`);
    throw invalidAt('scopes', `the resource "${resource.identifier}", which the document leaves in the realm, lists ${namedBriefly(missing)}`);
  }
}
