import type { AuditLog } from '../audit/audit-log.js';
import type { GrantType } from '../records/client.js';
import type { RequestRealm } from '../records/realm.js';
import type { Client } from '../store/clients.js';
import type { AssertionSpend } from '../store/spent-assertions.js';
import type { TokenResponse } from '../tokens/issuer.js';
import type { AskedTargets } from './audience.js';

export interface GrantRequest<Param extends string> {
  readonly realm: RequestRealm;
  /** Authenticated, and allowed this grant type by its record. */
  readonly client: Client;
  /** The grant's own parameters, each present at most once; all others stripped. */
  readonly params: Readonly<Partial<Record<Param, string>>>;
  /**
   * The `audience` and `resource` values asked for (any grant), each a registered resource of
   * the realm or one the client is allowed (src/grants/audience.ts); undefined when none was.
   * They become the new token's `aud`.
   */
  readonly audience: readonly string[] | undefined;
  /**
   * The `audience` and `resource` values as asked, unchecked but for the form of a resource:
   * given instead of `audience` when the grant reads them itself (GrantHandler.readsOwnTargets).
   */
  readonly askedTargets?: AskedTargets | undefined;
  /** The scopes an access token for `audience` may carry (src/resources/targets.ts scopesWithin); undefined: any. */
  readonly audienceScopes?: readonly string[] | undefined;
  /**
   * RFC 8705 §3: the SHA-256 thumbprint of the client certificate of the request, when the
   * client's tokens are to be bound to it (`tls_client_certificate_bound_access_tokens`).
   */
  readonly certificateThumbprint?: string | undefined;
  /**
   * RFC 9449 §5: the JWK SHA-256 thumbprint of the key of the request's DPoP proof, verified and
   * its `jti` spent; the new access token is bound to it, and a public client's refresh token.
   */
  readonly keyThumbprint?: string | undefined;
  /**
   * For a grant that `spendsProof`: the `jti` of the request's DPoP proof, verified but not
   * spent yet, to spend in the statement that writes the tokens (src/grants/issue.ts write).
   */
  readonly proofSpend?: AssertionSpend | undefined;
  /** The client's address: brute-force limits and the risk step judge it (the password grant). */
  readonly address: string;
  /** For what a grant does besides issuing (the issuer records issuances). */
  readonly audit: AuditLog;
}

/**
 * One grant type at the token endpoint. The endpoint authenticates the client, checks
 * that its record lists the grant type, and passes only the parameters named here.
 */
export interface GrantHandler<Param extends string = string> {
  readonly type: GrantType;
  readonly parameters: readonly Param[];
  /**
   * The grant spends the request's DPoP proof itself (`proofSpend`), with the tokens it writes:
   * no statement of its own, and no proof spent for tokens never written. For the other grants
   * the endpoint spends it before the grant runs.
   */
  readonly spendsProof?: boolean;
  /**
   * Whether this request's `audience` and `resource` name what the grant reads itself rather than
   * where an access token of this realm may be used (an ID-JAG's authorization server of another
   * trust domain, a transaction token's trust domain, CONTRACT.md §15): the endpoint then leaves
   * them to it (GrantRequest.askedTargets) instead of holding them to the realm's resources.
   */
  readsOwnTargets?(params: Readonly<Partial<Record<Param, string>>>): boolean;
  handle(request: GrantRequest<Param>): Promise<TokenResponse>;
}

/** The grant handlers of the token endpoint, by grant type. */
export class GrantRegistry {
  private readonly handlers: ReadonlyMap<string, GrantHandler>;

  constructor(handlers: readonly GrantHandler[]) {
    this.handlers = new Map(handlers.map((handler) => [handler.type, handler]));
  }

  get(type: string): GrantHandler | undefined {
    return this.handlers.get(type);
  }

  get types(): GrantType[] {
    return [...this.handlers.values()].map((handler) => handler.type);
  }
}
