import type { RealmSettings } from '../records/realm-settings.js';
import { namedBriefly, scopeNames } from '../records/scope.js';
import { CIBA_GRANT, type ClientMetadata, type GrantType, type RegistrationAllowance } from '../records/client.js';

/**
 * Grants that let a client obtain tokens for a person or another party without that party in a
 * browser (resource owner password, CIBA, token exchange, assertion grants): a self-registered
 * client gets them only from an initial access token that names them, never from the realm's
 * `registration_grant_types` alone, so that open registration cannot hand them to anyone.
 */
export const TOKEN_ONLY_GRANTS: ReadonlySet<GrantType> = new Set<GrantType>([
  'password',
  CIBA_GRANT,
  'urn:ietf:params:oauth:grant-type:token-exchange',
  'urn:ietf:params:oauth:grant-type:saml2-bearer',
  'urn:ietf:params:oauth:grant-type:jwt-bearer',
]);

/** The grant types, scopes and RFC 9396 types a self-registered client may ask for. */
export interface RegistrationPolicy {
  grantTypes: ReadonlySet<string>;
  scopes: ReadonlySet<string>;
  /**
   * The `authorization_details` types it may list: those the realm defines that its initial
   * access token allows, and those it already has. A type lets a client ask for rights such
   * as payments (with client credentials, no person's consent), so none comes by default.
   */
  authorizationDetailsTypes: ReadonlySet<string>;
}

/**
 * The realm's policy, widened by the allowance of the client's initial access token and, on an
 * update (RFC 7592 §2.2), by what the client already has: keeping a grant or scope an admin
 * gave it is not widening.
 */
export function registrationPolicy(
  settings: Pick<RealmSettings, 'registration_grant_types' | 'registration_scopes'> & Partial<Pick<RealmSettings, 'authorization_details_types'>>,
  allowance: RegistrationAllowance | undefined,
  current?: Pick<ClientMetadata, 'grant_types' | 'scope' | 'authorization_details_types'>,
): RegistrationPolicy {
  return {
    grantTypes: new Set<string>([
      ...settings.registration_grant_types.filter((grant) => !TOKEN_ONLY_GRANTS.has(grant)),
      ...(allowance?.grant_types ?? []),
      ...(current?.grant_types ?? []),
    ]),
    scopes: new Set([...settings.registration_scopes, ...scopeNames(allowance?.scope ?? ''), ...scopeNames(current?.scope ?? '')]),
    authorizationDetailsTypes: new Set([
      ...(allowance?.authorization_details_types ?? []).filter((type) => Object.hasOwn(settings.authorization_details_types ?? {}, type)),
      ...(current?.authorization_details_types ?? []),
    ]),
  };
}

/** What the record asks for beyond the policy, one problem per field (RFC 7591 §3.2.2 `invalid_client_metadata`). */
export function policyProblems(record: Pick<ClientMetadata, 'grant_types' | 'scope' | 'authorization_details_types'>, policy: RegistrationPolicy): string[] {
  const problems: string[] = [];
  const grants = record.grant_types.filter((grant) => !policy.grantTypes.has(grant));
  if (grants.length > 0) problems.push(`grant_types: not allowed to a self-registered client without an initial access token that allows it: ${namedBriefly(grants)}`);
  const scopes = scopeNames(record.scope).filter((name) => !policy.scopes.has(name));
  if (scopes.length > 0) problems.push(`scope: not allowed to a self-registered client without an initial access token that allows it: ${namedBriefly(scopes)}`);
  const types = (record.authorization_details_types ?? []).filter((type) => !policy.authorizationDetailsTypes.has(type));
  if (types.length > 0) {
    problems.push(`authorization_details_types: not allowed to a self-registered client without an initial access token that allows this realm's types: ${namedBriefly(types)}`);
  }
  return problems;
}
