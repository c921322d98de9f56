/**
 * The private claim naming the grant a JWT access token belongs to: revoking the grant (its
 * refresh token, a replayed code or refresh token, a logout) denies every token naming it.
 */
export const GRANT_ID_CLAIM = 'grant_id';

/**
 * The private claim of a token whose `sub` is a service (a client) other than the token's
 * `client_id`: one exchanged from a service's token (RFC 8693). Without it, a `sub` other than
 * `client_id` names a person (RFC 9068 §2.2).
 */
export const CLIENT_SUBJECT_CLAIM = 'sub_is_client';

/**
 * The private claim of the claims its grant's `claims` parameter asked for UserInfo (OpenID
 * Connect Core §5.5), by name: a stateless token is stored nowhere, so it carries them itself.
 * Only in the tokens of grants that asked.
 */
export const ASKED_USERINFO_CLAIM = 'userinfo_claims';

/**
 * The private claim of a pairwise client's token (OpenID Connect Core §8): its person, sealed
 * for this server alone (src/tokens/subject.ts), since its `sub` cannot be reversed.
 */
export const SEALED_SUBJECT_CLAIM = 'sealed_sub';
