/** OpenID Connect Core §5.5.1: how one claim is asked for; `null` asks for it plainly. */
export interface ClaimAsk {
  readonly essential?: boolean;
  readonly value?: unknown;
  readonly values?: readonly unknown[];
}

/** The destinations of the `claims` parameter this server serves (OpenID Connect Core §5.5). */
export const CLAIM_DESTINATIONS = ['userinfo', 'id_token'] as const;
export type ClaimDestination = (typeof CLAIM_DESTINATIONS)[number];

/** A validated `claims` parameter: per destination, each claim asked and how. */
export type ClaimsRequest = Readonly<Partial<Record<ClaimDestination, Readonly<Record<string, ClaimAsk | null>>>>>;

/**
 * What a grant keeps of its `claims` parameter: the names asked per destination. Only the names
 * decide what is released (the granted scopes still bound it); `acr` and `sub` are acted on
 * when the request is made.
 */
export type AskedClaims = Readonly<Partial<Record<ClaimDestination, readonly string[]>>>;
