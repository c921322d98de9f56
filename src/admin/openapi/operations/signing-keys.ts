import type { Operation } from '../operation.js';

/** A realm's signing keys. */
export const signingKeyOperations: readonly Operation[] = [
  {
    method: 'GET', path: '/admin/realms/:realm/keys', operationId: 'listKeys', tag: 'Signing keys', summary: 'List the published signing keys',
    responses: { 200: { description: 'The current keys and the retired ones that still verify', schema: 'SigningKeys' } },
  },
  {
    method: 'POST', path: '/admin/realms/:realm/keys/rotate', operationId: 'rotateKeys', tag: 'Signing keys', summary: 'Rotate both algorithms\' keys',
    description: 'New keys sign from now on; the replaced ones stay published while tokens they signed may live.',
    responses: { 200: { description: 'The new current keys', schema: 'RotatedKeys' } },
  },
];
