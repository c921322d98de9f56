import { randomUUID } from 'node:crypto';
import type { GrantType } from '../records/client.js';
import { OAuthError } from '../errors.js';
import type { Store, StoreTransaction } from '../store/index.js';
import type { Approval, PendingKind, PollOutcome } from '../store/pending-authorizations.js';
import type { User } from '../store/users.js';
import { type MintedTokens, type TokenIssuer, issuesRefreshTokens } from '../tokens/issuer.js';
import { sha256 } from '../secrets.js';
import type { GrantHandler, GrantRequest } from './grant-handler.js';
import { write } from './issue.js';

export interface PolledGrantDeps {
  store: Pick<Store, 'transaction'>;
  issuer: Pick<TokenIssuer, 'userTokens'>;
}

/**
 * A grant the client polls for while a person answers elsewhere (RFC 8628 §3.5, CIBA Core
 * §11): pending, too soon (the interval grows by 5 s), denied or expired; once approved, the
 * tokens go to exactly one poll. A secret of another client or realm is unknown here.
 *
 * The tokens carry the sign-in that approved the request: once its session has ended (a
 * sign-out denies what it approved; src/store/sessions.ts), the poll is denied. The session is
 * held while the tokens are written, so that a sign-out meanwhile waits, and revokes them.
 */
export function polledGrant<Param extends string>(
  deps: PolledGrantDeps,
  grant: {
    type: GrantType;
    kind: PendingKind;
    /** The parameter that carries the secret the client polls with. */
    parameter: Param;
    /** How error descriptions name that secret. */
    name: string;
  },
): GrantHandler<Param> {
  return {
    type: grant.type,
    parameters: [grant.parameter],
    async handle(request) {
      const secret = request.params[grant.parameter];
      if (!secret) throw new OAuthError('invalid_request', `${grant.parameter} is required`);
      // An approved request turns issued, and its tokens are written, in one transaction;
      // any other answer commits the poll alone (its time, and a longer interval if too soon).
      const answer = await deps.store.transaction(async (tx): Promise<ApprovedTokens> => {
        const outcome = await tx.pendingAuthorizations.poll(sha256(secret), request.realm.name, request.client.client_id, grant.kind);
        if (outcome.state !== 'approved') return { refusal: pollError(outcome, grant.name) };
        return approvedTokens(tx, deps.issuer, request, grant.type, outcome);
      });
      if ('refusal' in answer) throw answer.refusal;
      return answer.written.complete();
    },
  };
}

function pollError(outcome: Exclude<PollOutcome, { state: 'approved' }>, name: string): OAuthError {
  switch (outcome.state) {
    case 'unknown':
      return new OAuthError('invalid_grant', `the ${name} is invalid`);
    case 'expired':
      return new OAuthError('expired_token', `the ${name} has expired`);
    case 'pending':
      return outcome.tooSoon
        ? new OAuthError('slow_down', 'polled too soon; the interval is now 5 seconds longer')
        : new OAuthError('authorization_pending', 'the person has not answered yet');
    case 'denied':
      // RFC 8628 §3.5 and CIBA Core §11 answer it at the token endpoint, with 400.
      return new OAuthError('access_denied', 'the person denied the request', { status: 400 });
    case 'issued':
      return new OAuthError('invalid_grant', `the ${name} was already used`);
    case 'pushed':
      // CIBA Core §10.3: a push-mode client receives its tokens at its notification endpoint and does not poll.
      return new OAuthError('invalid_grant', `the ${name} is of a push-mode request: its tokens are delivered to the client notification endpoint`);
  }
}

/** The tokens of an approved request, written; or why they are refused. */
export type ApprovedTokens = { written: MintedTokens } | { refusal: OAuthError };

/** What the tokens of an approved request are minted for: the grant request's client, binding and audience. */
export type ApprovedIssuing = Pick<GrantRequest<string>, 'realm' | 'client' | 'audience' | 'audienceScopes' | 'certificateThumbprint' | 'keyThumbprint'> & {
  /** The client's address, for the audit trail; none when no request of the client's mints them (a push). */
  address?: string | undefined;
};

/**
 * Writes, in the caller's transaction, the tokens of a request the person approved, for that
 * person: refused when the sign-in that approved it has ended, or the person was deleted or
 * disabled meanwhile. Its session is held while the tokens are written, so that a sign-out
 * meanwhile waits, and revokes them. `authReqId`: a CIBA push's ID token names its request.
 */
export async function approvedTokens(
  tx: Pick<StoreTransaction, 'users' | 'tokens'>,
  issuer: PolledGrantDeps['issuer'],
  issuing: ApprovedIssuing,
  grantType: GrantType,
  approved: { scope: readonly string[]; approval: Approval },
  authReqId?: string,
): Promise<ApprovedTokens> {
  const { userId, sid } = approved.approval;
  const realm = issuing.realm.name;
  if (!(await tx.users.holdSession(realm, userId, sid))) {
    return { refusal: new OAuthError('access_denied', 'the person who approved the request has signed out', { status: 400 }) };
  }
  const user = await tx.users.hold(realm, userId);
  if (!user) return { refusal: new OAuthError('invalid_grant', 'the person who answered no longer exists') };
  // Disabled while the request waited to be collected (CONTRACT.md §10): held, the row is the one the disable committed.
  if (!user.enabled) return { refusal: new OAuthError('access_denied', 'the person who approved the request is disabled', { status: 400 }) };
  return { written: await write(tx.tokens, mint(issuer, issuing, grantType, approved, user, authReqId)) };
}

/** The tokens of an approved request, for the person who approved it. */
function mint(
  issuer: PolledGrantDeps['issuer'],
  { realm, client, audience, audienceScopes, certificateThumbprint, keyThumbprint, address }: ApprovedIssuing,
  grantType: GrantType,
  { approval, scope }: { scope: readonly string[]; approval: Approval },
  user: User,
  authReqId: string | undefined,
): MintedTokens {
  return issuer.userTokens({
    realm,
    client,
    grantType,
    user,
    scope,
    grantId: randomUUID(),
    signIn: { authTime: approval.authTime, amr: approval.amr, acr: approval.acr, sid: approval.sid },
    refreshScope: issuesRefreshTokens(realm, client) ? scope : undefined,
    audience,
    audienceScopes,
    certificateThumbprint,
    keyThumbprint,
    address,
    ...(authReqId === undefined ? {} : { authReqId }),
  });
}
