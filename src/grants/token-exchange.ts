import { OAuthError } from '../errors.js';
import { isScopeString, scopeNames, scopesOutside } from '../records/scope.js';
import type { Client } from '../store/clients.js';
import type { Actor } from '../store/tokens.js';
import type { TokenIssuer } from '../tokens/issuer.js';
import type { Subjects } from '../tokens/subject.js';
import type { GrantHandler } from './grant-handler.js';
import { type TokenWriter, issue } from './issue.js';
import { ID_JAG_TOKEN_TYPE, type IdJagIssuanceDeps, issueIdJag } from './id-jag-issuance.js';
import { type PresentedToken, type PresentedTokenDeps, TOKEN_TYPES, readPresentedToken } from './presented-token.js';
import { TXN_TOKEN_TYPE, issueTransactionToken } from './transaction-token.js';

const GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:token-exchange';

type Param =
  | 'subject_token'
  | 'subject_token_type'
  | 'actor_token'
  | 'actor_token_type'
  | 'requested_token_type'
  | 'scope'
  | 'request_context'
  | 'request_details';

/** The tokens this realm issues by token exchange besides access tokens (CONTRACT.md §15), each by its own rules. */
const OTHER_TOKEN_TYPES: ReadonlySet<string> = new Set([ID_JAG_TOKEN_TYPE, TXN_TOKEN_TYPE]);

/**
 * Token exchange (RFC 8693): a client trades a token meant for it (this realm's access token
 * issued to it or naming it in `aud`, or a JWT or ID token from a trusted issuer naming this
 * realm in `aud`; CONTRACT.md §7) for an access token of its own, with the same subject (a
 * person or a service), narrower in scope and meant for the `audience` or `resource` it names
 * (which the token endpoint holds to the realm's registered resources and the client's
 * `allowed_audiences`). With an actor token, the new token says who acts for the subject
 * (`act`, nested over any earlier actor, RFC 8693 §4.1), as far as the subject token's `may_act`
 * allows (§4.4). No refresh token is issued (§2.2.1 leaves it open; the client exchanges again
 * instead). A token exchanged from this realm's own joins its grant, and ends with it.
 */
export function tokenExchangeGrant(
  deps: PresentedTokenDeps & IdJagIssuanceDeps & { issuer: Pick<TokenIssuer, 'accessToken'>; tokens: TokenWriter },
): GrantHandler<Param> {
  return {
    type: GRANT_TYPE,
    parameters: ['subject_token', 'subject_token_type', 'actor_token', 'actor_token_type', 'requested_token_type', 'scope', 'request_context', 'request_details'],
    // An ID-JAG's audience is another trust domain's authorization server; a transaction token's, the realm's trust domain.
    readsOwnTargets: (params) => params.requested_token_type !== undefined && OTHER_TOKEN_TYPES.has(params.requested_token_type),
    async handle(request) {
      const { realm, client, params, audience, audienceScopes, certificateThumbprint, keyThumbprint, address } = request;
      // As Keycloak does: a public client proves nothing of itself, and may not trade tokens.
      if (client.client_type === 'public') throw new OAuthError('unauthorized_client', 'token exchange is for confidential clients only');
      if (!params.subject_token || !params.subject_token_type) {
        throw new OAuthError('invalid_request', 'subject_token and subject_token_type are required');
      }
      if ((params.actor_token === undefined) !== (params.actor_token_type === undefined)) {
        throw new OAuthError('invalid_request', 'actor_token and actor_token_type go together');
      }
      if (params.requested_token_type === ID_JAG_TOKEN_TYPE) return issueIdJag(deps, request);
      if (params.requested_token_type === TXN_TOKEN_TYPE) return issueTransactionToken(deps, request);
      if (params.requested_token_type !== undefined && params.requested_token_type !== TOKEN_TYPES.accessToken) {
        throw new OAuthError(
          'invalid_request',
          `requested_token_type is not supported: ${TOKEN_TYPES.accessToken}, ${ID_JAG_TOKEN_TYPE} and ${TXN_TOKEN_TYPE} are issued`,
        );
      }

      const read = (role: 'subject_token' | 'actor_token', token: string, type: string) =>
        readPresentedToken(deps, realm, client.client_id, role, token, type);
      const subject = await read('subject_token', params.subject_token, params.subject_token_type);
      const actor = params.actor_token ? asTheClientSees(deps.subjects, client, realm.issuer, await read('actor_token', params.actor_token, params.actor_token_type!)) : undefined;
      if (actor) checkMayAct(subject, actor);

      const response = await issue(deps.tokens, deps.issuer.accessToken({
        realm,
        client,
        grantType: GRANT_TYPE,
        scope: exchangedScope(params.scope, subject, client),
        subject: subject.subject,
        userId: subject.userId,
        certificateThumbprint,
        keyThumbprint,
        address,
        act: actor ? actorOf(actor, subject.act, realm.issuer) : subject.act,
        audience,
        audienceScopes,
        // Joining the subject token's grant and sign-in: revoking that grant, or signing out,
        // ends the exchanged token too.
        grantId: subject.grantId,
        grantStartedAt: subject.grantStartedAt,
        signIn: subject.signIn,
      }));
      return { ...response, issued_token_type: TOKEN_TYPES.accessToken };
    },
  };
}

/**
 * The scope of the new token: what is asked, which must lie within the subject token's scope
 * (never wider) and the client's; by default, all of the subject token's that the client has.
 */
function exchangedScope(requested: string | undefined, subject: PresentedToken, client: Client): string[] {
  const clientScope = scopeNames(client.scope);
  const allowed = subject.scope ?? clientScope;
  if (requested === undefined) return allowed.filter((name) => clientScope.includes(name));
  if (!isScopeString(requested)) throw new OAuthError('invalid_scope', 'the scope parameter is malformed');
  const names = scopeNames(requested);
  const wider = scopesOutside(names, allowed);
  if (wider.length > 0) throw new OAuthError('invalid_scope', `the subject_token does not allow: ${wider.join(' ')}`);
  const refused = scopesOutside(names, clientScope);
  if (refused.length > 0) throw new OAuthError('invalid_scope', `the client may not request: ${refused.join(' ')}`);
  return names;
}

/**
 * OpenID Connect Core §8: a person acting (`act`) is named to the client as it knows them; the
 * tokens of trusted issuers name their own subjects, and a service is its client_id.
 */
function asTheClientSees(subjects: Pick<Subjects, 'for'>, client: Client, realmIssuer: string, actor: PresentedToken): PresentedToken {
  if (actor.userId === undefined || actor.claimed.iss !== realmIssuer) return actor;
  return { ...actor, claimed: { ...actor.claimed, sub: subjects.for(client, actor.userId) } };
}

/** RFC 8693 §4.4: when the subject token names who may act for it, the actor must be that one. */
function checkMayAct(subject: PresentedToken, actor: PresentedToken): void {
  const { mayAct } = subject;
  if (mayAct === undefined) return;
  const matches = mayAct.sub === actor.claimed.sub && (mayAct.iss === undefined || mayAct.iss === actor.claimed.iss);
  if (!matches) throw new OAuthError('invalid_request', "the actor_token's subject is not allowed to act for the subject (may_act)");
}

/** RFC 8693 §4.1: the current actor outermost, earlier actors nested within. */
function actorOf(actor: PresentedToken, earlier: Actor | undefined, realmIssuer: string): Actor {
  return {
    sub: actor.claimed.sub,
    ...(actor.claimed.iss === realmIssuer ? {} : { iss: actor.claimed.iss }),
    ...(earlier ? { act: earlier } : {}),
  };
}
