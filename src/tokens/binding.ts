/**
 * What binds a token to the client that obtained it beyond its value: sender-constraining
 * (RFC 9700 §4.10.1). A token bound to nothing is a bearer token.
 */
interface TokenBinding {
  /** RFC 8705 §3: the SHA-256 thumbprint of the client certificate. */
  readonly certificateThumbprint?: string | undefined;
  /** RFC 9449 §6: the JWK SHA-256 thumbprint (RFC 7638) of the DPoP key. */
  readonly keyThumbprint?: string | undefined;
}

/** The `cnf` claim (RFC 7800 §3.1) of a bound token, as JWTs and introspection answers carry it. */
export interface Confirmation {
  /** RFC 8705 §3.1. */
  'x5t#S256'?: string;
  /** RFC 9449 §6.1. */
  jkt?: string;
}

/** Whether only the holder of a certificate or key may use the token (what FAPI 2.0 requires of access tokens). */
export function isSenderConstrained(token: TokenBinding): boolean {
  return token.certificateThumbprint !== undefined || token.keyThumbprint !== undefined;
}

/** `cnf` of a bound token; undefined for a bearer token. */
export function confirmationOf(token: TokenBinding): Confirmation | undefined {
  if (!isSenderConstrained(token)) return undefined;
  return {
    ...(token.certificateThumbprint === undefined ? {} : { 'x5t#S256': token.certificateThumbprint }),
    ...(token.keyThumbprint === undefined ? {} : { jkt: token.keyThumbprint }),
  };
}

/** The binding a `cnf` claim read back says (unknown members ignored). */
export function bindingOf(cnf: unknown): TokenBinding {
  if (typeof cnf !== 'object' || cnf === null) return {};
  const { 'x5t#S256': certificate, jkt } = cnf as Record<string, unknown>;
  return {
    ...(typeof certificate === 'string' && certificate !== '' ? { certificateThumbprint: certificate } : {}),
    ...(typeof jkt === 'string' && jkt !== '' ? { keyThumbprint: jkt } : {}),
  };
}

/** RFC 9449 §5 and §7.1: an access token bound to a DPoP key is of type `DPoP`, and is presented with that scheme; any other is `Bearer`. */
export function accessTokenType(token: TokenBinding): 'Bearer' | 'DPoP' {
  return token.keyThumbprint === undefined ? 'Bearer' : 'DPoP';
}
