import type { RealmSettings } from '../records/realm-settings.js';
import { UntrustedRedirectError } from '../requests/authorization-request.js';
import type { ClientMetadata } from '../records/client.js';
import { RegistrationError, registeredRecord } from './registration-metadata.js';
import { registrationPolicy } from './registration-policy.js';

/**
 * Why a client_id URL cannot serve as a client (its form, its document's fetch, its document).
 * An untrusted client at /authorize: the 400 page, never a redirect, since the redirect URI
 * comes from the document; `invalid_client` at the endpoints that authenticate clients.
 */
export class MetadataDocumentError extends UntrustedRedirectError {
  override name = 'MetadataDocumentError';
}

/**
 * What such a client may be: a public client, or one that authenticates with `private_key_jwt`
 * and the keys of its `jwks_uri` (draft-ietf-oauth-client-id-metadata-document §4.1, CONTRACT.md
 * §11), of the code flow and its refresh tokens.
 */
const SERVED = { grantTypes: ['authorization_code', 'refresh_token'], clientAuthMethods: ['none', 'private_key_jwt'] } as const;

/** §4.1: no method that rests on a secret shared with the server, which a document cannot establish. */
const SHARED_SECRET_METHODS = new Set(['client_secret_basic', 'client_secret_post', 'client_secret_jwt']);

const refused = (problem: string) => new MetadataDocumentError(`the client's metadata document ${problem}`);

/**
 * The client record a metadata document describes, for a realm. A client describing itself
 * is held to what dynamic registration without an initial access token allows
 * (src/clients/registration-metadata.ts with the realm's registration policy): the same fields,
 * grants and scopes within `registration_grant_types` and `registration_scopes`, nothing an
 * admin alone sets (consent skipped, introspection of any token, audiences, journey, logo).
 * Beyond that: `client_id` equals the URL, no client secret, `none` (the default here, since a
 * secret cannot exist) or `private_key_jwt` with `jwks_uri`, the code flow and refresh tokens
 * only, PKCE always. A document without `scope` may ask for the realm's `registration_scopes`.
 */
export function metadataDocumentRecord(
  document: unknown,
  clientId: string,
  settings: Pick<RealmSettings, 'registration_grant_types' | 'registration_scopes'>,
): ClientMetadata {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) throw refused('is not a JSON object');
  const fields = document as Record<string, unknown>;
  if (fields.client_id !== clientId) throw refused('must have a client_id equal to the URL it is fetched from');
  if ('client_secret' in fields || 'client_secret_expires_at' in fields) throw refused('must not hold client_secret or client_secret_expires_at');
  const method = fields.token_endpoint_auth_method ?? 'none';
  if (typeof method === 'string' && SHARED_SECRET_METHODS.has(method)) {
    throw refused(`asks for ${method}, which needs a secret shared with the server: use none or private_key_jwt`);
  }
  if (typeof method === 'string' && !(SERVED.clientAuthMethods as readonly string[]).includes(method)) {
    throw refused(`asks for ${method.slice(0, 64)}: a client described by a metadata document uses none or private_key_jwt`);
  }
  if (fields.jwks !== undefined) throw refused('must give its keys by jwks_uri, not jwks');
  // Its record is fetched again and again, not registered once: there is no moment to check a sector_identifier_uri.
  if (fields.subject_type === 'pairwise' || fields.sector_identifier_uri !== undefined) throw refused('asks for pairwise subjects, which a client described by a metadata document cannot have');
  if (method === 'private_key_jwt' && fields.jwks_uri === undefined) throw refused('asks for private_key_jwt without a jwks_uri');
  const grants = fields.grant_types ?? ['authorization_code'];
  if (Array.isArray(grants)) {
    if (grants.some((grant) => !(SERVED.grantTypes as readonly unknown[]).includes(grant))) {
      throw refused('asks for grant types other than authorization_code and refresh_token');
    }
    if (!grants.includes('authorization_code')) throw refused('must list the authorization_code grant');
  }

  let record: ClientMetadata;
  try {
    record = registeredRecord(
      { ...fields, token_endpoint_auth_method: method, scope: fields.scope ?? settings.registration_scopes.join(' ') },
      SERVED,
      registrationPolicy(settings, undefined),
    );
  } catch (error) {
    if (error instanceof RegistrationError) throw refused(`is not acceptable: ${error.description}`);
    throw error;
  }
  return { ...record, require_pkce: true };
}
