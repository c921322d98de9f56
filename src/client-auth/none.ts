import type { ClientAuthMethod } from './method.js';

/** Public clients (RFC 6749 §2.1) identify themselves with client_id alone. */
export const none: ClientAuthMethod = {
  name: 'none',
  verify: (client, presented) => presented.form === 'client_id_only' && client.client_type === 'public',
};
