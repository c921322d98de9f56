/**
 * The longest client_id URL taken: it goes into every token and consent row of the client, and
 * a client assertion's `sub` is at most 256 characters (src/client-auth/credentials.ts).
 */
export const MAX_CLIENT_ID_URL_LENGTH = 256;

/**
 * Whether a client_id is meant as a client identifier URL: it names an https URL. Registered
 * client ids never do (src/records/client.ts CLIENT_ID holds no "/"), so that it cannot be
 * mistaken for one.
 */
export const isClientIdUrl = (clientId: string): boolean => /^https:\/\//i.test(clientId);

/**
 * Whether a client the directory handed out is described by the metadata document its
 * client_id URL serves rather than registered: only those have a URL for their id (above). The
 * pages then show the URL's host beside its self-chosen name.
 */
export const describedByDocument = (client: { readonly client_id: string }): boolean => isClientIdUrl(client.client_id);

/**
 * What is wrong with a client identifier URL (draft-ietf-oauth-client-id-metadata-document §3),
 * undefined when nothing: https, no userinfo, a path without "." or ".." segments, no fragment;
 * a port and a query are allowed. It must also be written as the URL it is (lower-case scheme
 * and host, no default port, percent-encoding as URLs have it): it is compared as a string with
 * the document's `client_id` and stored as the client's id, and what is fetched is exactly it,
 * so that two spellings of one URL are never two clients.
 */
export function clientIdUrlProblem(clientId: string): string | undefined {
  if (clientId.length > MAX_CLIENT_ID_URL_LENGTH) return `a client_id URL is at most ${MAX_CLIENT_ID_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return 'the client_id is not a URL';
  }
  if (url.protocol !== 'https:') return 'a client_id URL must use https';
  if (clientId.includes('#')) return 'a client_id URL must not have a fragment';
  // The parser drops an empty userinfo ("https://@host/"); the comparison below refuses that.
  if (url.username !== '' || url.password !== '' || /^https:\/\/[^/?#]*@/i.test(clientId)) {
    return 'a client_id URL must not hold a username or password';
  }
  const rawPath = clientId.replace(/^https:\/\/[^/?#]*/i, '').split('?')[0]!;
  if (rawPath === '') return 'a client_id URL must have a path';
  if (rawPath.split('/').some((segment) => /^(\.|%2e){1,2}$/i.test(segment))) {
    return 'a client_id URL must not have . or .. path segments';
  }
  if (url.href !== clientId) return 'a client_id URL must be written in its normal form (lower-case scheme and host, no default port, no needless escapes)';
  return undefined;
}
