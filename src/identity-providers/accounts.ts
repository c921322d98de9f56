import type { AuditLog } from '../audit/audit-log.js';
import type { Store } from '../store/index.js';
import type { IdentityProvider } from '../store/identity-providers.js';
import { copiedClaims, usernameFrom, verifiedEmailOf } from './claims.js';
import type { UpstreamAccount } from './upstream-flow.js';

/** Where the sign-in happens, for the audit events. */
export interface LinkContext {
  readonly realm: string;
  readonly address: string;
  readonly clientId: string | undefined;
}

type How = 'account' | 'verified_email' | 'created';

/**
 * Whether the upstream account is linked to the person an earlier node of the journey
 * identified (CONTRACT.md §8): only then does it confirm their sign-in. An account not linked,
 * or linked to someone else, links nothing here: else whoever holds a password would add an
 * upstream account of their own as a lasting way into the person's account. Linking a new
 * one is the account page's (src/account/identities.ts).
 */
export async function linkedToPerson(store: Pick<Store, 'userIdentities'>, realm: string, provider: IdentityProvider, account: UpstreamAccount, userId: string): Promise<boolean> {
  const linked = await store.userIdentities.personOf(realm, provider.alias, account.subject);
  return linked?.id === userId;
}

/** What linking an upstream account to a signed-in person did. */
export type LinkOutcome = 'linked' | 'already_linked' | 'other_person';

/**
 * Links the upstream account to the signed-in person, from their account page (which asked
 * for a recent sign-in first): an `identity.linked` event. An account linked already stays
 * as it is, to them or to another person.
 */
export async function linkToPerson(
  deps: { store: Pick<Store, 'userIdentities'>; audit: AuditLog },
  provider: IdentityProvider,
  account: UpstreamAccount,
  context: { realm: string; address: string; userId: string },
): Promise<LinkOutcome> {
  const { userIdentities } = deps.store;
  const identity = { provider: provider.alias, subject: account.subject };
  const linked = await userIdentities.personOf(context.realm, provider.alias, account.subject);
  if (!linked && (await userIdentities.link(context.realm, { ...identity, userId: context.userId }))) {
    recordLinked(deps.audit, { ...context, clientId: undefined }, context.userId, identity, 'account');
    return 'linked';
  }
  // Linked before, or meanwhile (a sign-in or another tab at the same time): that link stands.
  const owner = linked ?? (await userIdentities.personOf(context.realm, provider.alias, account.subject));
  return owner?.id === context.userId ? 'already_linked' : 'other_person';
}

/**
 * The person an upstream account signs in as, when no earlier node knows who signs in
 * (CONTRACT.md §10): the one linked to it; else, when the provider allows it and the upstream
 * vouches for the email, the one person of the realm with that email (unless their own record
 * says it is unverified; a disabled one is named, not linked); else a new person, made just in
 * time and linked. Each new link is an `identity.linked` event.
 */
export async function personOf(
  deps: { store: Pick<Store, 'users' | 'userIdentities'>; audit: AuditLog },
  provider: IdentityProvider,
  account: UpstreamAccount,
  context: LinkContext,
): Promise<string> {
  const { users, userIdentities } = deps.store;
  const identity = { provider: provider.alias, subject: account.subject };
  const linked = await userIdentities.personOf(context.realm, provider.alias, account.subject);
  if (linked) return linked.id;

  const linkTo = async (userId: string, how: How): Promise<string> => {
    if (await userIdentities.link(context.realm, { ...identity, userId })) {
      recordLinked(deps.audit, context, userId, identity, how);
      return userId;
    }
    // Linked meanwhile by a sign-in at the same time: that link stands.
    return personOf(deps, provider, account, context);
  };
  const email = provider.link_by_verified_email ? verifiedEmailOf(account.claims) : undefined;
  const sameEmail = email === undefined ? undefined : await users.getByEmail(context.realm, email);
  if (sameEmail && sameEmail.claims.email_verified !== false) {
    // A disabled person is not linked, and no one new is made in their place: the sign-in stops at them (CONTRACT.md §10).
    if (!sameEmail.enabled) return sameEmail.id;
    return linkTo(sameEmail.id, 'verified_email');
  }

  const username = usernameFrom(account.claims, provider.username_claim, provider.alias);
  const created = await userIdentities.createLinked(context.realm, identity, username, copiedClaims(account.claims));
  if (!created) return personOf(deps, provider, account, context);
  deps.audit.record({
    realm: context.realm,
    type: 'user.created',
    clientId: context.clientId,
    userId: created.id,
    address: context.address,
    details: { username: created.username, via: 'identity_provider', provider: provider.alias },
  });
  recordLinked(deps.audit, context, created.id, identity, 'created');
  return created.id;
}

function recordLinked(audit: AuditLog, context: LinkContext, userId: string, identity: { provider: string; subject: string }, how: How): void {
  audit.record({
    realm: context.realm,
    type: 'identity.linked',
    clientId: context.clientId,
    userId,
    address: context.address,
    details: { ...identity, how },
  });
}
