import { DELETED, MERGES, type Operation } from '../operation.js';

/** An RFC 7517 public key, for the examples. */
const EXAMPLE_PUBLIC_JWK = {
  kty: 'EC',
  crv: 'P-256',
  x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
  y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
};

/** A realm's trusted issuers. */
export const trustedIssuerOperations: readonly Operation[] = [
  {
    method: 'GET', path: '/admin/realms/:realm/trusted-issuers', operationId: 'listTrustedIssuers', tag: 'Trusted issuers', summary: 'List the trusted issuers',
    responses: { 200: { description: 'The trusted issuers', schema: 'TrustedIssuer', list: true } },
  },
  {
    method: 'POST', path: '/admin/realms/:realm/trusted-issuers', operationId: 'createTrustedIssuer', tag: 'Trusted issuers', summary: 'Trust an issuer',
    description:
      'A `jwt` issuer is trusted by its keys (`jwks` or `jwks_uri`, exactly one), a `saml2` issuer by its `certificate_pem`. ' +
      '`subject_mapping` defaults to `username`; without `client_ids`, every client allowed the grant may present its assertions.',
    body: { schema: 'TrustedIssuerCreate', example: { kind: 'jwt', issuer: 'https://idp.example', jwks: { keys: [EXAMPLE_PUBLIC_JWK] }, client_ids: ['billing'] } },
    responses: { 201: { description: 'The trusted issuer', schema: 'TrustedIssuer' } },
    errors: [409],
  },
  {
    method: 'GET', path: '/admin/realms/:realm/trusted-issuers/:id', operationId: 'getTrustedIssuer', tag: 'Trusted issuers', summary: 'Read a trusted issuer',
    responses: { 200: { description: 'The trusted issuer', schema: 'TrustedIssuer' } },
  },
  {
    method: 'PATCH', path: '/admin/realms/:realm/trusted-issuers/:id', operationId: 'updateTrustedIssuer', tag: 'Trusted issuers', summary: 'Change a trusted issuer',
    description: `${MERGES} The kind cannot change; \`client_ids: null\` admits every client again.`,
    body: { schema: 'TrustedIssuerPatch', example: { subject_mapping: 'email' } },
    responses: { 200: { description: 'The trusted issuer', schema: 'TrustedIssuer' } },
    errors: [409],
  },
  {
    method: 'DELETE', path: '/admin/realms/:realm/trusted-issuers/:id', operationId: 'deleteTrustedIssuer', tag: 'Trusted issuers', summary: 'Stop trusting an issuer',
    responses: DELETED,
  },
];
