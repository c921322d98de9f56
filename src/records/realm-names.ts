export const ROOT_REALM = 'root';

const REALM_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;

/**
 * First path segments that endpoints and pages use under an issuer: a realm named like one
 * would make `/oauth2/{realm}` ambiguous with a root realm endpoint (CONTRACT.md §2).
 */
const ENDPOINT_SEGMENTS = new Set([
  'authorize',
  'access_token',
  'token',
  'introspect',
  'par',
  'device',
  'bc-authorize',
  'bc-approve',
  'connect',
  'userinfo',
  'login',
  'logout',
  'consent',
  'account',
  'assets',
  'jwks',
  'register',
  'revoke',
  'broker',
]);

/** Why a realm name cannot be used, or undefined when it can. */
export function realmNameProblem(name: string): string | undefined {
  if (!REALM_NAME.test(name)) return 'a realm name is 1 to 63 characters of a-z, 0-9 and -, starting with a letter or digit';
  if (ENDPOINT_SEGMENTS.has(name)) return `"${name}" is an endpoint path segment`;
  return undefined;
}

/** The issuer of a realm (CONTRACT.md §2): `{BASE_URL}/oauth2` for root, `{BASE_URL}/oauth2/{realm}` otherwise. */
export function issuerOf(baseUrl: string, realm: string): string {
  return realm === ROOT_REALM ? `${baseUrl}/oauth2` : `${baseUrl}/oauth2/${realm}`;
}
