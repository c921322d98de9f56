import type { z } from 'zod';
import type { Journey } from '../../records/journey.js';
import { journeyNamed } from '../../authn/journeys/select.js';
import { realmNameProblem } from '../../records/realm-names.js';
import { clientRecordProblems } from '../../profiles/fapi2.js';
import type { RealmSettings } from '../../records/realm-settings.js';
import { namedBriefly } from '../../records/scope.js';
import { generateRealmKeys } from '../../tokens/signing-keys.js';
import type { AdminDeps } from '../deps.js';
import { checkAcrJourneys } from '../journey-references.js';
import { checkMailFeatures } from '../realms.js';
import { conflict } from '../validate.js';
import { isEmailTaken } from '../../store/users.js';
import type { RealmDocument } from './document.js';
import { type FinalClient, checkSectorIdentifiers, clientsAsTheyAre, missingScopes, planClients } from './import-clients.js';
import { planIdentityProviders } from './import-identity-providers.js';
import { planPeople } from './import-people.js';
import { checkedJourneys, planJourneys, planSettings } from './import-realm.js';
import { planGroups, planRoles } from './import-roles.js';
import { type FinalResource, checkResourceScopes, planResources, resourcesAsTheyAre } from './import-resources.js';
import { planScopes } from './import-scopes.js';
import { planTrustedIssuers } from './import-trusted-issuers.js';
import { checkedRealmTexts, planTexts } from './import-texts.js';
import type { RealmImportSummarySchema } from './summary-schema.js';
import { type PlanContext, type SectionPlan, invalidAt, problemsAt } from './plan.js';

/** The sections of a document, in the order their writes are applied: what an entry names is written before it. */
const SECTIONS = ['settings', 'journeys', 'scopes', 'roles', 'groups', 'identity_providers', 'trusted_issuers', 'resources', 'clients', 'texts', 'users'] as const;
type Section = (typeof SECTIONS)[number];

/**
 * What an import did: whether it created the realm, and for each section the document has, the
 * names of what it created, changed and deleted (settings by name). `secrets_to_set` names the
 * clients and identity providers that have no secret yet, which an admin sets after the import
 * (docs/realms-as-data.md).
 */
export type ImportSummary = z.output<typeof RealmImportSummarySchema>;

export interface ImportOptions {
  /** What a section of the document leaves out is deleted: the document is the whole truth of the sections it has. */
  prune: boolean;
}

/**
 * Applies a realm's document (CONTRACT.md §10) in one transaction, creating the realm when it
 * does not exist: what is missing is created and what differs is changed; what is the same is
 * not written at all, so that applying a document again changes nothing. Every problem is
 * found before the first write, and any failure rolls back the whole import.
 */
export async function importRealm(
  deps: Pick<AdminDeps, 'store' | 'encryption' | 'mailer' | 'sectorIdentifiers' | 'keyPairs'>,
  name: string,
  document: RealmDocument,
  options: ImportOptions,
): Promise<ImportSummary> {
  const { store, encryption } = deps;
  checkMailFeatures(document.settings, deps.mailer);
  const journeys = document.journeys === undefined ? undefined : checkedJourneys(document.journeys);
  const texts = document.texts === undefined ? undefined : checkedRealmTexts(document.texts);
  const existed = await store.realms.get(name);
  if (!existed) {
    const problem = realmNameProblem(name);
    if (problem) throw invalidAt('realm', problem);
  }
  if (document.clients) await checkSectorIdentifiers({ clients: store.clients, sectorIdentifiers: deps.sectorIdentifiers }, name, document.clients);
  // Keys take a while to make: not while the transaction is open, unless the realm went meanwhile.
  const keys = existed ? undefined : await generateRealmKeys(name, encryption, deps.keyPairs);

  // An address the checks above saw free, taken meanwhile, or passed from one person to another within the document.
  const emailTakenMeanwhile = (error: unknown) => {
    throw isEmailTaken(error) ? conflict('an email address of the document is another person\'s: import the document again, or give each person their own') : error;
  };
  return store.transaction(async (tx) => {
    let realm = await tx.realms.get(name);
    const created = !realm;
    realm ??= await tx.realms.create(name, document.settings ?? {}, keys ?? (await generateRealmKeys(name, encryption, deps.keyPairs)));
    if (!realm) throw conflict('the realm was created meanwhile: import the document again');
    const ctx: PlanContext = { realm: name, tx, prune: options.prune, encryption };
    const plans: Partial<Record<Section, SectionPlan>> = {};

    let settings: RealmSettings = realm.settings;
    if (document.settings) ({ plan: plans.settings, settings } = planSettings(ctx, realm, document.settings));
    let finalJourneys: Readonly<Record<string, Journey>> = realm.journeys;
    if (journeys) ({ plan: plans.journeys, journeys: finalJourneys } = planJourneys(ctx, realm, journeys));
    // A section the document has is read by its planner; one it leaves out, as it is.
    let scopes: Set<string>;
    if (document.scopes) ({ plan: plans.scopes, names: scopes } = await planScopes(ctx, document.scopes));
    else scopes = new Set((await tx.scopes.list(name)).map((scope) => scope.name));
    let roles: Set<string>;
    if (document.roles) ({ plan: plans.roles, names: roles } = await planRoles(ctx, document.roles));
    else roles = new Set((await tx.roles.list(name)).map((role) => role.name));
    let groups: Set<string>;
    if (document.groups) ({ plan: plans.groups, names: groups } = await planGroups(ctx, document.groups, roles));
    else groups = new Set((await tx.groups.list(name)).map((group) => group.name));
    let aliases: Set<string>;
    const secretsToSet: ImportSummary['secrets_to_set'] = { clients: [], identity_providers: [] };
    if (document.identity_providers) {
      ({ plan: plans.identity_providers, aliases, secretsToSet: secretsToSet.identity_providers } = await planIdentityProviders(ctx, document.identity_providers));
    } else aliases = new Set((await tx.identityProviders.list(name)).map((provider) => provider.alias));
    if (document.trusted_issuers) plans.trusted_issuers = await planTrustedIssuers(ctx, document.trusted_issuers);
    let resources: FinalResource[];
    if (document.resources) ({ plan: plans.resources, resources } = await planResources(ctx, document.resources));
    else resources = await resourcesAsTheyAre(tx, name);
    let clients: Awaited<ReturnType<typeof clientsAsTheyAre>>;
    if (document.clients) ({ plan: plans.clients, clients, secretsToSet: secretsToSet.clients } = await planClients(ctx, document.clients));
    else clients = await clientsAsTheyAre(tx, name);
    if (texts) plans.texts = planTexts(ctx, realm, texts);
    if (document.users) plans.users = await planPeople(ctx, document.users, { aliases, roles, groups });

    checkReferences({ journeys: finalJourneys, settings }, scopes, clients);
    checkResourceScopes(resources, scopes);
    for (const section of SECTIONS) await plans[section]?.apply(tx);
    const sections = Object.fromEntries(SECTIONS.filter((section) => plans[section]).map((section) => [section, plans[section]!.summary]));
    return { realm: name, realm_created: created, prune: options.prune, sections, secrets_to_set: secretsToSet };
  }).catch(emailTakenMeanwhile);
}

/**
 * What the realm will hold names only what it will hold: each client's scopes and journey, and
 * the journeys of `acr_journeys` (as the admin API checks them one change at a time).
 */
function checkReferences(realm: { journeys: Readonly<Record<string, Journey>>; settings: RealmSettings }, scopes: ReadonlySet<string>, clients: readonly FinalClient[]): void {
  checkAcrJourneys(realm, realm.settings.acr_journeys);
  for (const client of clients) {
    const missing = missingScopes(client, scopes);
    if (missing.length > 0) {
      if (client.path) throw invalidAt(`${client.path}.scope`, `not defined in this realm: ${namedBriefly(missing)}`);
      throw invalidAt('scopes', `the client "${client.clientId}", which the document leaves in the realm, uses ${namedBriefly(missing)}`);
    }
    // The realm's profile (FAPI 2.0) holds for the clients the document describes; those it leaves alone stay as they are.
    const profileProblems = clientRecordProblems(realm, client.metadata);
    if (client.path && profileProblems.length > 0) throw problemsAt(client.path, profileProblems.join('; '));
    const journey = client.metadata.journey;
    if (journey !== undefined && !journeyNamed(realm, journey)) {
      if (client.path) throw invalidAt(`${client.path}.journey`, `the realm has no journey "${journey}"`);
      throw invalidAt('journeys', `the client "${client.clientId}", which the document leaves in the realm, walks the journey "${journey}"`);
    }
  }
}
