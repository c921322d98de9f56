import { ResourceQuerySchema } from '../../resources.js';
import { DELETED, type Operation } from '../operation.js';

const EXAMPLE_IDENTIFIER = 'https://orders.example.com/api';

const identifierQuery = (description: string) => ({
  schema: ResourceQuerySchema,
  parameters: { identifier: { description, example: EXAMPLE_IDENTIFIER } },
});

/** A realm's registered resources (RFC 8707), keyed by their identifier, a URI in the query. */
export const resourceOperations: readonly Operation[] = [
  {
    method: 'GET', path: '/admin/realms/:realm/resources', operationId: 'getResources', tag: 'Resources', summary: 'List the realm\'s resources, or read one',
    description: 'Without `identifier`, every resource of the realm, by identifier; with it, that resource (404 when the realm has none of that identifier).',
    query: identifierQuery('The identifier of the one resource to read, URL-encoded'),
    responses: { 200: { description: 'The resources (an array), or the one named (an object)', schema: 'ResourceLookup' } },
  },
  {
    method: 'PUT', path: '/admin/realms/:realm/resources', operationId: 'putResource', tag: 'Resources', summary: 'Register a resource or change it',
    description:
      'Keyed by `identifier`. A field left out keeps its value (none for a new resource); `null` clears it. Each of `scopes` must be a scope of ' +
      'the realm (400 naming the missing ones, and nothing changes); a scope a resource lists cannot be deleted (409).',
    body: { schema: 'ResourcePut', example: { identifier: EXAMPLE_IDENTIFIER, name: 'Orders API', scopes: ['orders:read'] } },
    responses: { 200: { description: 'The resource, changed', schema: 'Resource' }, 201: { description: 'The resource, registered', schema: 'Resource' } },
  },
  {
    method: 'DELETE', path: '/admin/realms/:realm/resources', operationId: 'deleteResource', tag: 'Resources', summary: 'Delete a resource',
    description:
      'Clients can no longer ask for it (`invalid_target`), unless their `allowed_audiences` name it. Tokens issued for it stay valid until they expire; ' +
      'a refresh of their grant is still for it.',
    query: identifierQuery('The identifier of the resource to delete, URL-encoded (required)'),
    responses: DELETED,
  },
];
