import type { X509Certificate } from 'node:crypto';
import type { AuthMethod } from '../records/client.js';
import type { RequestRealm } from '../records/realm.js';
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
