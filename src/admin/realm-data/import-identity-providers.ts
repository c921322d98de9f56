import { recordFieldsOf, recordOf } from '../../records/identity-provider.js';
import { openClientSecret, sealClientSecret } from '../../identity-providers/secret.js';
import type { IdentityProvider } from '../../store/identity-providers.js';
import { conflict } from '../validate.js';
import type { IdentityProviderEntry } from './document.js';
import { type PlanContext, SectionPlanner, type SectionPlan, refuseDuplicates } from './plan.js';
import { sameJson } from './same.js';

/** The secret of a provider that waits for one (docs/realms-as-data.md): the broker does not use it. */
const NO_SECRET = '';

/** A provider as the document holds it: its record, never its secret. */
export const identityProviderEntry = (provider: IdentityProvider): IdentityProviderEntry => ({ alias: provider.alias, ...recordFieldsOf(provider) });

/**
 * Each provider of the document becomes as it describes it, the fields it leaves out at their
 * defaults. A secret in the document replaces the stored one when it differs; without one, a
 * new provider has none (its sign-ins fail until an admin sets it: `secretsToSet`) and an
 * existing one keeps its own. With prune, the providers it leaves out are deleted, and the
 * links of people to them with them.
 */
export async function planIdentityProviders(
  ctx: PlanContext,
  entries: readonly IdentityProviderEntry[],
): Promise<{ plan: SectionPlan; aliases: Set<string>; secretsToSet: string[] }> {
  refuseDuplicates('identity_providers', entries, (entry) => entry.alias, 'the same alias');
  const current = new Map((await ctx.tx.identityProviders.list(ctx.realm)).map((provider) => [provider.alias, provider]));
  const planner = new SectionPlanner();
  const aliases = new Set(current.keys());
  const secretsToSet: string[] = [];
  const seal = (alias: string, secret: string) => sealClientSecret(ctx.encryption, ctx.realm, alias, secret);
  for (const entry of entries) {
    const { alias, client_secret: secret } = entry;
    const record = recordOf({ ...entry, client_secret: secret ?? NO_SECRET });
    const existing = current.get(alias);
    aliases.add(alias);
    if (!existing) {
      if (secret === undefined) secretsToSet.push(alias);
      planner.create(alias, async (tx) => {
        if (!(await tx.identityProviders.create(ctx.realm, alias, record, seal(alias, secret ?? NO_SECRET)))) {
          throw conflict(`identity_providers: a provider of the alias ${alias} was created meanwhile`);
        }
      });
      continue;
    }
    const storedSecret = openClientSecret(ctx.encryption, ctx.realm, alias, existing.sealedSecret);
    if (secret === undefined && storedSecret === NO_SECRET) secretsToSet.push(alias);
    const newSecret = secret !== undefined && secret !== storedSecret ? secret : undefined;
    if (newSecret !== undefined || !sameJson(recordFieldsOf(existing), record)) {
      planner.change(alias, async (tx) => void (await tx.identityProviders.update(ctx.realm, alias, record, newSecret === undefined ? undefined : seal(alias, newSecret))));
    } else {
      planner.unchanged();
    }
  }
  if (ctx.prune) {
    const named = new Set(entries.map((entry) => entry.alias));
    for (const alias of [...current.keys()].filter((alias) => !named.has(alias))) {
      aliases.delete(alias);
      planner.delete(alias, async (tx) => void (await tx.identityProviders.delete(ctx.realm, alias)));
    }
  }
  return { plan: planner.plan(), aliases, secretsToSet };
}
