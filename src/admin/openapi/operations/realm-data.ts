import { REALM_DOCUMENT_BODY_LIMIT, RealmExportQuerySchema, RealmImportQuerySchema } from '../../realm-data/routes.js';
import type { Operation } from '../operation.js';

const EXAMPLE_DOCUMENT = {
  settings: { access_token_lifetime: 900, require_pkce: true },
  scopes: [{ name: 'orders:read', description: 'Read your orders' }],
  clients: [{ client_id: 'shop', client_type: 'public', redirect_uris: ['https://shop.example/callback'], grant_types: ['authorization_code'], scope: 'openid orders:read' }],
};

/** A realm as data (CONTRACT.md §10, docs/realms-as-data.md). */
export const realmDataOperations: readonly Operation[] = [
  {
    method: 'GET', path: '/admin/realms/:realm/export', operationId: 'exportRealm', tag: 'Realms', summary: 'Export a realm as one document',
    description:
      'The realm\'s settings, scopes (with the claims they map), stored journeys, roles, groups, clients, identity providers and trusted ' +
      'issuers, in an order of their names, so that ' +
      'two exports of an unchanged realm are the same text. Never a secret: no client secret or its hash, no identity provider secret, no ' +
      'signing key (a realm imported from it makes its own). With `users=true`, the people too, with their password hashes, `sub`, claims, ' +
      'whether they are enabled, own roles, groups and links to identity providers, but not their one-time-code secrets, recovery codes or passkeys.',
    query: {
      schema: RealmExportQuerySchema,
      parameters: { users: { description: '`true`: with the realm\'s people and their password hashes', example: 'true' } },
    },
    responses: { 200: { description: 'The document, as `PUT …/import` takes it', schema: 'RealmDocument', headers: { 'Cache-Control': 'no-store' } } },
  },
  {
    method: 'PUT', path: '/admin/realms/:realm/import', operationId: 'importRealm', tag: 'Realms', summary: 'Apply a document to a realm, creating the realm when there is none',
    description:
      'In one transaction: what the document has and the realm lacks is created, what differs is changed (each entry as the document describes it, ' +
      'the fields it leaves out at their defaults; a person\'s password is never removed), and what is the same is not written, so that applying ' +
      'a document again changes nothing. What a section of the document leaves out is kept, unless `prune=true`; a section the document ' +
      'does not have is left alone either way. A bad document is refused (400) naming the path of the bad field (`clients.2.redirect_uris.0: …`), ' +
      'and nothing is written; so is a password hash asking more of argon2 than m=262144 KiB, t=10, p=8 (400 naming the person), and a document ' +
      `that would give two people one email address (409). Secrets are not imported: the answer names what needs one. Bodies up to ${REALM_DOCUMENT_BODY_LIMIT / 1024 / 1024} MiB.`,
    query: {
      schema: RealmImportQuerySchema,
      parameters: { prune: { description: '`true`: delete what a section of the document leaves out (never a built-in scope)', example: 'false' } },
    },
    body: { schema: 'RealmDocument', example: EXAMPLE_DOCUMENT },
    responses: {
      200: { description: 'What the import did to the realm', schema: 'RealmImportSummary' },
      201: { description: 'The realm was created; what the import did', schema: 'RealmImportSummary' },
    },
    errors: [409],
  },
];
