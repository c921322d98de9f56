import { randomUUID } from 'node:crypto';
import { OAuthError } from '../errors.js';
import { nestsDeeperThan } from '../json-depth.js';
import { isScopeString, namedBriefly, scopeNames, scopesOutside } from '../records/scope.js';
import type { RealmSigner } from '../tokens/signer.js';
import type { Subjects } from '../tokens/subject.js';
import type { TokenResponse } from '../tokens/token-requests.js';
import type { GrantRequest } from './grant-handler.js';
import { type PresentedTokenDeps, TOKEN_TYPES, ownAccessToken } from './presented-token.js';

/** draft-ietf-oauth-transaction-tokens §7.1: the token type of a transaction token. */
export const TXN_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:txn_token';
/** Its §6.1: the `typ` header of a transaction token. */
export const TXN_TOKEN_TYP = 'txntoken+jwt';
/** A realm's transaction tokens live this long unless its setting says less (CONTRACT.md §15: at most 300). */
export const DEFAULT_TXN_TOKEN_LIFETIME = 60;
/** `request_context` and `request_details` nest no deeper: they are copied into a token that every service of the call chain reads. */
const CONTEXT_DEPTH = 8;

export interface TransactionTokenDeps extends Pick<PresentedTokenDeps, 'tokens' | 'jwtAccessTokens' | 'users'> {
  signer: Pick<RealmSigner, 'sign'>;
  subjects: Pick<Subjects, 'for'>;
}

/**
 * Transaction tokens (draft-ietf-oauth-transaction-tokens §7, CONTRACT.md §15): a workload of the
 * realm's trust domain (a client with `transaction_token_service`, such as the API gateway that
 * received a request) trades a live access token of the realm for a short-lived signed token
 * (`typ: txntoken+jwt`) that the services of the call chain pass along in the `Txn-Token` header:
 * who the transaction is for (`sub`), why (`scope`, the purpose, never wider than the access
 * token's, §10.9), a unique `txn`, the immutable transaction context (`tctx`, from
 * `request_details`) and the request's (`rctx`, from `request_context`). It lives the realm's
 * `transaction_tokens.lifetime`, never past the access token, and never comes with a refresh
 * token (§7.4).
 */
export async function issueTransactionToken(deps: TransactionTokenDeps, request: GrantRequest<string>): Promise<TokenResponse> {
  const { realm, client, params, askedTargets } = request;
  const setting = realm.settings.transaction_tokens;
  if (setting === null) throw new OAuthError('invalid_request', 'this realm issues no transaction tokens (its transaction_tokens setting is off)');
  if (client.transaction_token_service !== true) {
    throw new OAuthError('unauthorized_client', 'the client may not ask for transaction tokens (transaction_token_service)');
  }
  if (params.actor_token !== undefined) throw new OAuthError('invalid_request', 'a transaction token has no actor: actor_token is not used');
  const audience = askedTargets?.audience ?? [];
  if (audience.length !== 1 || audience[0] !== setting.trust_domain) {
    throw new OAuthError('invalid_target', "audience must be the realm's trust domain, once");
  }
  if ((askedTargets?.resource.length ?? 0) > 0) throw new OAuthError('invalid_target', 'a transaction token is for its trust domain alone: resource is not used');
  const purpose = purposeOf(params.scope);
  const context = jsonObject('request_context', params.request_context);
  const details = jsonObject('request_details', params.request_details);
  if (params.subject_token_type !== TOKEN_TYPES.accessToken) {
    throw new OAuthError('invalid_request', `subject_token_type is not supported for a transaction token: use ${TOKEN_TYPES.accessToken}`);
  }

  // The workload speaks for the trust domain: any live access token of the realm that reached it may be the subject.
  const subject = await ownAccessToken(deps, realm, params.subject_token!);
  if (!subject) throw new OAuthError('invalid_request', 'the subject_token is not accepted: it is not an active access token of this realm');
  const wider = scopesOutside(purpose, subject.token.scope ?? []);
  if (wider.length > 0) throw new OAuthError('invalid_scope', `the purpose is wider than the subject_token's scope: ${namedBriefly(wider)}`);

  const now = Math.floor(Date.now() / 1000);
  const lifetime = Math.min(setting.lifetime ?? DEFAULT_TXN_TOKEN_LIFETIME, subject.expiresAt - now);
  if (lifetime < 1) throw new OAuthError('invalid_request', 'the subject_token is not accepted: it expires now');
  const txn = randomUUID();
  const scope = purpose.join(' ');
  const token = await deps.signer.sign(
    realm.name,
    realm.settings.signing_alg,
    {
      iss: realm.issuer,
      aud: setting.trust_domain,
      iat: now,
      exp: now + lifetime,
      txn,
      // The person as the asking workload knows them (OpenID Connect Core §8); a service's token names the service.
      sub: subject.token.userId === undefined ? subject.token.subject : deps.subjects.for(client, subject.token.userId),
      scope,
      // The workload that asked (draft §6.2 `req_wl`).
      req_wl: client.client_id,
      tctx: details ?? {},
      rctx: context ?? {},
    },
    TXN_TOKEN_TYP,
  );
  request.audit.record(
    {
      realm: realm.name,
      type: 'transaction_token.issued',
      clientId: client.client_id,
      userId: subject.token.userId,
      address: request.address,
      details: { txn, scope, trust_domain: setting.trust_domain, subject_client_id: subject.issuedTo },
    },
    realm.settings.audit_event_lifetime,
  );
  return { access_token: token, issued_token_type: TXN_TOKEN_TYPE, token_type: 'N_A', expires_in: lifetime, scope };
}

/** Its §7.1: `scope` is required, the purpose of the transaction. */
function purposeOf(scope: string | undefined): string[] {
  if (scope === undefined) throw new OAuthError('invalid_request', 'scope is required: the purpose of the transaction');
  if (!isScopeString(scope)) throw new OAuthError('invalid_scope', 'the scope parameter is malformed');
  return scopeNames(scope);
}

/** A parameter holding a JSON object (its §7.1), within the form's value limit and CONTEXT_DEPTH. */
function jsonObject(name: string, value: string | undefined): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new OAuthError('invalid_request', `${name} must be a JSON object`);
  if (nestsDeeperThan(parsed, CONTEXT_DEPTH)) throw new OAuthError('invalid_request', `${name} nests too deeply`);
  return parsed as Record<string, unknown>;
}
