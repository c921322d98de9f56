import type { AuditLog } from '../audit/audit-log.js';
import type { Store } from '../store/index.js';
import type { IdentityProvider } from '../store/identity-providers.js';
import { copiedClaims, usernameFrom, verifiedEmailOf } from './claims.js';
import { UpstreamFailure } from './failures.js';
import { displayNameOf } from './record.js';
import type { UpstreamAccount } from './upstream-flow.js';

/** Where the sign-in happens, for the audit events. */
export interface LinkContext {
  readonly realm: string;
  readonly address: string;
  readonly clientId: string | undefined;
  /** The person an earlier node of the journey identified, if any. */
  readonly knownUserId: string | undefined;
}

type How = 'signed_in' | 'verified_email' | 'created';

/**
 * The person an upstream account signs in as (CONTRACT.md §10): the one linked to it; else,
 * when the journey knows the person already, that person, linked now; else, when the provider
 * allows it and the upstream vouches for the email, the one person of the realm with that
 * email (unless their own record says it is unverified; a disabled one is named, not linked);
 * else a new person, made just in time and linked. Each new link is an `identity.linked` event.
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
  if (linked) {
    if (context.knownUserId !== undefined && linked.id !== context.knownUserId) {
      throw new UpstreamFailure('other_person', displayNameOf(provider.alias, provider));
    }
    return linked.id;
  }

  const linkTo = async (userId: string, how: How): Promise<string> => {
    if (await userIdentities.link(context.realm, { ...identity, userId })) {
      recordLinked(deps.audit, context, userId, identity, how);
      return userId;
    }
    // Linked meanwhile by a sign-in at the same time: that link stands.
    return personOf(deps, provider, account, context);
  };
  if (context.knownUserId !== undefined) return linkTo(context.knownUserId, 'signed_in');

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
