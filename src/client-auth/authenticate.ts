import type { FastifyRequest } from 'fastify';
import { OAuthError } from '../errors.js';
import type { RequestRealm } from '../realms/resolve.js';
import type { ClientStore, Client } from '../store/clients.js';
import { readClientCredentials, usesBasic } from './credentials.js';
import { CLIENT_AUTH_METHODS } from './methods.js';
import { matchesHash } from '../crypto/hash.js';

/**
 * Authenticates the client of a token, introspection or revocation request with the
 * method on its record. Every failure is the same `invalid_client`, whether the client is
 * unknown or its credentials are wrong; 401 with a Basic challenge when the Authorization
 * header was used (RFC 6749 §5.2).
 */
export async function authenticateClient(request: FastifyRequest, realm: RequestRealm, clients: ClientStore): Promise<Client> {
  const authorization = request.headers.authorization;
  const failure = (description: string): OAuthError =>
    new OAuthError('invalid_client', description, {
      headers: usesBasic(authorization) ? { 'www-authenticate': `Basic realm="${realm.name}"` } : {},
    });

  let presented;
  try {
    presented = readClientCredentials(authorization, request.body);
  } catch (error) {
    if (error instanceof OAuthError && error.code === 'invalid_client') throw failure(error.description ?? 'client authentication failed');
    throw error;
  }
  if (!presented) throw failure('client authentication is required');

  const client = await clients.get(realm.name, presented.clientId);
  const method = client && CLIENT_AUTH_METHODS.get(client.token_endpoint_auth_method);
  if (!client || !method) {
    // As long as a wrong secret takes, so that timing does not tell which clients exist.
    if (presented.secret !== undefined) matchesHash(presented.secret, undefined);
    throw failure('client authentication failed');
  }
  if (!method.verify(client, presented)) throw failure('client authentication failed');
  return client;
}
