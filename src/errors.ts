/**
 * The one error type of the server. Its code is what the client sees; its description is
 * written for the client and never carries secrets or internal detail; `cause` is for logs.
 */
export type ErrorCode =
  // RFC 6749 §5.2 and §4.1.2.1
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'access_denied'
  | 'unsupported_response_type'
  | 'server_error'
  | 'temporarily_unavailable'
  // OpenID Connect Core §3.1.2.6
  | 'login_required'
  | 'consent_required'
  | 'interaction_required'
  | 'request_not_supported'
  // RFC 9101 §6.3, OpenID Connect Core §3.1.2.6: a signed request object that cannot be accepted
  | 'invalid_request_object'
  // RFC 8628 §3.5 (device flow) and CIBA Core §11 (polling)
  | 'authorization_pending'
  | 'slow_down'
  | 'expired_token'
  // CIBA Core §13
  | 'unknown_user_id'
  | 'expired_login_hint_token'
  | 'invalid_binding_message'
  | 'missing_user_code'
  | 'invalid_user_code'
  // RFC 8707 §2 (resource indicators, token exchange)
  | 'invalid_target'
  // RFC 9396 §5 (rich authorization requests)
  | 'invalid_authorization_details'
  // RFC 6750 §3.1
  | 'invalid_token'
  | 'insufficient_scope'
  // RFC 7009 §2.2.1
  | 'unsupported_token_type'
  // RFC 9449 §5 and §8 (DPoP); a resource server answers them with 401
  | 'invalid_dpop_proof'
  | 'use_dpop_nonce'
  // admin API and routing (CONTRACT.md §5)
  | 'not_found'
  | 'conflict'
  // admin API: an administrator's roles do not allow the call (CONTRACT.md §14)
  | 'forbidden';

const defaultStatus: Record<ErrorCode, number> = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  invalid_scope: 400,
  access_denied: 403,
  unsupported_response_type: 400,
  login_required: 400,
  consent_required: 400,
  interaction_required: 400,
  request_not_supported: 400,
  invalid_request_object: 400,
  authorization_pending: 400,
  slow_down: 400,
  expired_token: 400,
  unknown_user_id: 400,
  expired_login_hint_token: 400,
  invalid_binding_message: 400,
  missing_user_code: 400,
  invalid_user_code: 400,
  invalid_target: 400,
  invalid_authorization_details: 400,
  server_error: 500,
  temporarily_unavailable: 503,
  invalid_token: 401,
  insufficient_scope: 403,
  unsupported_token_type: 400,
  invalid_dpop_proof: 400,
  use_dpop_nonce: 400,
  not_found: 404,
  conflict: 409,
  forbidden: 403,
};

export interface OAuthErrorOptions {
  status?: number;
  headers?: Record<string, string>;
  cause?: unknown;
}

export class OAuthError extends Error {
  override name = 'OAuthError';
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    readonly code: ErrorCode,
    readonly description?: string,
    options: OAuthErrorOptions = {},
  ) {
    super(description ?? code, { cause: options.cause });
    this.status = options.status ?? defaultStatus[code];
    this.headers = options.headers ?? {};
  }

  toJSON(): { error: ErrorCode; error_description?: string } {
    return this.description === undefined ? { error: this.code } : { error: this.code, error_description: this.description };
  }
}

/** The store could not be reached: the request may succeed later (503). */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
}

/** Text the database cannot hold (a NUL character): whatever input carried it is malformed (400). */
export class UnstorableTextError extends Error {
  override name = 'UnstorableTextError';
}
