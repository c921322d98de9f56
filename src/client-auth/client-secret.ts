import { matchesHash } from '../secrets.js';
import type { ClientAuthMethod } from './method.js';

/**
 * `client_secret_basic` and `client_secret_post` (RFC 6749 §2.3.1): the client's secret,
 * compared by its SHA-256 in constant time, presented the way the client registered (the
 * presented form and the method share their names).
 */
export function clientSecret(name: 'client_secret_basic' | 'client_secret_post'): ClientAuthMethod {
  return {
    name,
    verify: (client, presented) => presented.form === name && presented.secret !== undefined && matchesHash(presented.secret, client.secretHash),
  };
}
