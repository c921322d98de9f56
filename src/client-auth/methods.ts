import type { X509Certificate } from 'node:crypto';
import type { AuthMethod } from '../clients/record.js';
import { matchesHash } from '../crypto/hash.js';
import type { RequestRealm } from '../realms/resolve.js';
import type { Client } from '../store/clients.js';
import type { PresentedCredentials } from './credentials.js';

/** What a method may need of the request beside the credentials it presents. */
export interface ClientAuthContext {
  readonly realm: RequestRealm;
  /** The URL of the endpoint the request reached: an audience a client assertion may name. */
  readonly endpointUrl: string;
  /** The TLS client certificate of the request: from the connection, or from a trusted proxy's header. */
  readonly certificate: X509Certificate | undefined;
}

/** One `token_endpoint_auth_method`: whether the presented credentials prove the client. */
export interface ClientAuthMethod {
  readonly name: AuthMethod;
  verify(client: Client, presented: PresentedCredentials, context: ClientAuthContext): boolean | Promise<boolean>;
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
export function clientAuthMethods(): ReadonlyMap<AuthMethod, ClientAuthMethod> {
  return new Map([clientSecretBasic, clientSecretPost, none].map((method) => [method.name, method]));
}
