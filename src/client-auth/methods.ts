import type { AuthMethod } from '../clients/record.js';
import { matchesHash } from '../crypto/hash.js';
import type { Client } from '../store/clients.js';
import type { PresentedCredentials } from './credentials.js';

/** One `token_endpoint_auth_method`: whether the presented credentials prove the client. */
export interface ClientAuthMethod {
  readonly name: AuthMethod;
  verify(client: Client, presented: PresentedCredentials): boolean;
}

const clientSecretBasic: ClientAuthMethod = {
  name: 'client_secret_basic',
  verify: (client, presented) =>
    presented.form === 'client_secret_basic' && presented.secret !== undefined && matchesHash(presented.secret, client.secretHash),
};

const clientSecretPost: ClientAuthMethod = {
  name: 'client_secret_post',
  verify: (client, presented) =>
    presented.form === 'client_secret_post' && presented.secret !== undefined && matchesHash(presented.secret, client.secretHash),
};

/** Public clients (RFC 6749 §2.1) identify themselves with client_id alone. */
const none: ClientAuthMethod = {
  name: 'none',
  verify: (client, presented) => presented.form === 'client_id_only' && client.client_type === 'public',
};

/** The methods this server implements, by name. */
export const CLIENT_AUTH_METHODS: ReadonlyMap<AuthMethod, ClientAuthMethod> = new Map(
  [clientSecretBasic, clientSecretPost, none].map((method) => [method.name, method]),
);
