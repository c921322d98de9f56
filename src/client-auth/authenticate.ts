import type { X509Certificate } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { AuthMethod } from '../clients/record.js';
import { matchesHash } from '../crypto/hash.js';
import { OAuthError } from '../errors.js';
import type { Client, ClientStore } from '../store/clients.js';
import { readClientCredentials, usesBasic } from './credentials.js';
import type { ClientAuthMethod } from './methods.js';

/**
 * Authenticates the client of a token, introspection, revocation or PAR request with the
 * method on its record. Every failure is the same `invalid_client`, whether the client is
 * unknown or its credentials are wrong; 401 with a Basic challenge when the Authorization
 * header was used (RFC 6749 §5.2).
 */
export class ClientAuthenticator {
  constructor(
    private readonly clients: ClientStore,
    private readonly methods: ReadonlyMap<AuthMethod, ClientAuthMethod>,
    /** The TLS client certificate of a request, if it has one (src/http/client-certificate.ts). */
    private readonly certificateOf: (request: FastifyRequest) => X509Certificate | undefined,
  ) {}

  /** The names of the methods served, for discovery. */
  get methodNames(): AuthMethod[] {
    return [...this.methods.keys()];
  }

  /** `endpointPath`: the endpoint's path below the issuer, e.g. `/access_token`. */
  async authenticate(request: FastifyRequest, endpointPath: string): Promise<Client> {
    const realm = request.realm;
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

    const client = await this.clients.get(realm.name, presented.clientId);
    const method = client && this.methods.get(client.token_endpoint_auth_method);
    if (!client || !method) {
      // As long as a wrong secret takes, so that timing does not tell which clients exist.
      if (presented.secret !== undefined) matchesHash(presented.secret, undefined);
      throw failure('client authentication failed');
    }
    const certificateOf = this.certificateOf;
    const context = {
      realm,
      endpointUrl: `${realm.issuer}${endpointPath}`,
      // Read only by the methods that need it: secret-based authentication stays as cheap as it was.
      get certificate() {
        return certificateOf(request);
      },
    };
    if (!(await method.verify(client, presented, context))) throw failure('client authentication failed');
    return client;
  }
}
