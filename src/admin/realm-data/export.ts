import type { Realm } from '../../store/realms.js';
import type { Store } from '../../store/index.js';
import type { UserIdentity } from '../../store/user-identities.js';
import { REALM_DOCUMENT_VERSION, type RealmDocument } from './document.js';
import { clientEntry } from './import-clients.js';
import { identityProviderEntry } from './import-identity-providers.js';
import { everyone, personEntry } from './import-people.js';
import { groupEntry, roleEntry } from './import-roles.js';
import { resourceEntry } from './import-resources.js';
import { scopeEntry } from './import-scopes.js';
import { trustedIssuerEntry } from './import-trusted-issuers.js';

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The realm as one document (CONTRACT.md §10), in an order of its own content (names, not
 * creation times), so that two exports of the same realm are the same text and a realm
 * imported from it exports the same document again. Never a secret: no client secrets or their
 * hashes, no identity provider secrets, no signing keys; with `people`, password hashes but no
 * one-time-code secrets, recovery codes or passkeys.
 */
export async function exportRealm(store: Store, realm: Realm, people: boolean): Promise<RealmDocument> {
  const name = realm.name;
  const [scopes, roles, groups, clients, providers, issuers, resources] = await Promise.all([
    store.scopes.list(name),
    store.roles.list(name),
    store.groups.list(name),
    store.clients.list(name),
    store.identityProviders.list(name),
    store.trustedIssuers.list(name),
    store.resources.list(name),
  ]);
  return {
    version: REALM_DOCUMENT_VERSION,
    realm: name,
    settings: realm.settings,
    scopes: scopes.map(scopeEntry).sort((a, b) => byName(a.name, b.name)),
    journeys: Object.fromEntries(Object.entries(realm.journeys).sort(([a], [b]) => byName(a, b))),
    roles: roles.map(roleEntry),
    groups: groups.map(groupEntry),
    clients: clients.map(clientEntry).sort((a, b) => byName(a.client_id, b.client_id)),
    identity_providers: providers.map(identityProviderEntry).sort((a, b) => byName(a.alias, b.alias)),
    trusted_issuers: issuers.map(trustedIssuerEntry).sort((a, b) => byName(a.kind, b.kind) || byName(a.issuer, b.issuer)),
    // In identifier order already (byte order, as byName).
    resources: resources.map(resourceEntry),
    texts: Object.fromEntries(
      Object.entries(realm.texts)
        .sort(([a], [b]) => byName(a, b))
        .map(([locale, words]) => [locale, Object.fromEntries(Object.entries(words).sort(([a], [b]) => byName(a, b)))]),
    ),
    ...(people ? { users: await peopleOf(store, name) } : {}),
  };
}

async function peopleOf(store: Store, realm: string): Promise<NonNullable<RealmDocument['users']>> {
  const [users, links, memberships] = await Promise.all([everyone(store.users, realm), store.userIdentities.ofRealm(realm), store.memberships.ofRealm(realm)]);
  const linksOf = new Map<string, UserIdentity[]>();
  for (const link of links) linksOf.set(link.userId, [...(linksOf.get(link.userId) ?? []), link]);
  const ordered = (identities: UserIdentity[]) => identities.sort((a, b) => byName(a.provider, b.provider) || byName(a.subject, b.subject));
  return users.map((user) => personEntry(user, ordered(linksOf.get(user.id) ?? []), memberships.get(user.id)));
}
