import { DELETED, MERGES, type Operation } from '../operation.js';

/** A realm's clients. */
export const clientOperations: readonly Operation[] = [
  {
    method: 'GET', path: '/admin/realms/:realm/clients', operationId: 'listClients', tag: 'Clients', summary: 'List the realm\'s clients',
    responses: { 200: { description: 'The clients, by client_id; never a secret', schema: 'Client', list: true } },
  },
  {
    method: 'POST', path: '/admin/realms/:realm/clients', operationId: 'createClient', tag: 'Clients', summary: 'Create a client',
    description: 'A `client_id` is generated when none is given. A client authenticating with a secret receives it in this answer, once. The scopes named must exist in the realm.',
    body: { schema: 'ClientCreate', example: { client_id: 'billing', grant_types: ['client_credentials'], scope: 'orders:read' } },
    responses: { 201: { description: 'The client, with its secret when it has one', schema: 'ClientWithSecret' } },
    errors: [409],
  },
  {
    method: 'GET', path: '/admin/realms/:realm/clients/:client_id', operationId: 'getClient', tag: 'Clients', summary: 'Read a client',
    responses: { 200: { description: 'The client; never its secret', schema: 'Client' } },
  },
  {
    method: 'PATCH', path: '/admin/realms/:realm/clients/:client_id', operationId: 'updateClient', tag: 'Clients', summary: 'Change a client',
    description: `${MERGES} A client that now authenticates with a secret it never had receives one in this answer, once.`,
    body: { schema: 'ClientPatch', example: { client_name: 'Billing service' } },
    responses: { 200: { description: 'The client', schema: 'ClientWithSecret' } },
  },
  {
    method: 'DELETE', path: '/admin/realms/:realm/clients/:client_id', operationId: 'deleteClient', tag: 'Clients', summary: 'Delete a client',
    responses: DELETED,
  },
  {
    method: 'POST', path: '/admin/realms/:realm/clients/:client_id/secret', operationId: 'rotateClientSecret', tag: 'Clients', summary: 'Rotate a client\'s secret',
    description: 'A client that does not authenticate with a secret has none to rotate (400).',
    responses: { 200: { description: 'The new secret', schema: 'ClientSecret' } },
    errors: [400],
  },
];
