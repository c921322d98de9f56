import { DELETED, MERGES, type Operation } from '../operation.js';

/** A provider of the kind the contract describes (CONTRACT.md §10). */
const EXAMPLE_PROVIDER = {
  alias: 'corp',
  kind: 'oidc',
  issuer: 'https://login.corp.example',
  client_id: 'realmgate',
  client_secret: 'the secret the provider gave',
  display_name: 'Corp account',
  link_by_verified_email: true,
};

/** A realm's upstream OpenID providers. */
export const identityProviderOperations: readonly Operation[] = [
  {
    method: 'GET', path: '/admin/realms/:realm/identity-providers', operationId: 'listIdentityProviders', tag: 'Identity providers', summary: 'List the identity providers',
    responses: { 200: { description: 'The identity providers, in the order they were added', schema: 'IdentityProvider', list: true } },
  },
  {
    method: 'POST', path: '/admin/realms/:realm/identity-providers', operationId: 'createIdentityProvider', tag: 'Identity providers', summary: 'Add an identity provider',
    description:
      'The sign-in page offers a button for it beside the password form, and a journey\'s `identity_provider` node names it by its alias. ' +
      'Register the answer\'s `redirect_uri` at the provider. `client_secret` is stored encrypted and never answered.',
    body: { schema: 'IdentityProviderCreate', example: EXAMPLE_PROVIDER },
    responses: { 201: { description: 'The identity provider', schema: 'IdentityProvider' } },
    errors: [409],
  },
  {
    method: 'GET', path: '/admin/realms/:realm/identity-providers/:alias', operationId: 'getIdentityProvider', tag: 'Identity providers', summary: 'Read an identity provider',
    responses: { 200: { description: 'The identity provider', schema: 'IdentityProvider' } },
  },
  {
    method: 'PATCH', path: '/admin/realms/:realm/identity-providers/:alias', operationId: 'updateIdentityProvider', tag: 'Identity providers', summary: 'Change an identity provider',
    description: `${MERGES} The alias and the kind cannot change; a new \`client_secret\` replaces the stored one.`,
    body: { schema: 'IdentityProviderPatch', example: { client_secret: 'the new secret', link_by_verified_email: false } },
    responses: { 200: { description: 'The identity provider', schema: 'IdentityProvider' } },
  },
  {
    method: 'DELETE', path: '/admin/realms/:realm/identity-providers/:alias', operationId: 'deleteIdentityProvider', tag: 'Identity providers', summary: 'Remove an identity provider',
    description: 'The links of people\'s upstream accounts at it go with it; the people stay.',
    responses: DELETED,
  },
];
