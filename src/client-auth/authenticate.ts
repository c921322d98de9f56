import type { X509Certificate } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { ClientDirectory } from '../clients/metadata-document-clients.js';
import { MetadataDocumentError } from '../clients/metadata-document.js';
import type { AuthMethod } from '../records/client.js';
import { OAuthError } from '../errors.js';
import type { RequestRealm } from '../records/realm.js';
import type { Client } from '../store/clients.js';
import { matchesHash } from '../secrets.js';
import { readClientCredentials, usesBasic } from './credentials.js';
import type { ClientAuthContext, ClientAuthMethod } from './method.js';

/**
 * A method's view of the request. The certificate is read only by the methods that need it, so
 * that secret-based authentication stays as cheap as it was.
 *
 * A class, not an object literal with a getter: V8 keeps each such literal's getter outside the
 * young generation, where, garbage once the request ends, it kept the whole request alive until
 * the next full collection. Every request's objects were then promoted to the old generation,
 * which grew by some 7 MB/s at the token endpoint (`node --trace-gc-nvp`, docs/benchmarks.md
 * "Memory").
 */
class RequestAuthContext implements ClientAuthContext {
  readonly realm: RequestRealm;

  constructor(
    private readonly request: FastifyRequest,
    readonly endpointUrl: string,
    private readonly certificateOf: (request: FastifyRequest) => X509Certificate | undefined,
  ) {
    this.realm = request.realm;
  }

  get certificate(): X509Certificate | undefined {
    return this.certificateOf(this.request);
  }
}

/**
 * Authenticates the client of a token, introspection, revocation or PAR request with the
 * method on its record. Every failure is the same `invalid_client`, whether the client is
 * unknown or its credentials are wrong; 401 with a Basic challenge when the Authorization
 * header was used (RFC 6749 §5.2).
 */
export class ClientAuthenticator {
  constructor(
    /** Registered clients, and those a client_id URL describes (src/clients/metadata-document-clients.ts). */
    private readonly clients: Pick<ClientDirectory, 'get'>,
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

    let client: Client | undefined;
    try {
      client = await this.clients.get(realm, presented.clientId);
    } catch (error) {
      // A client_id URL whose document cannot be fetched or used names no client.
      if (error instanceof MetadataDocumentError) throw failure(error.message);
      throw error;
    }
    const method = client && this.methods.get(client.token_endpoint_auth_method);
    if (!client || !method) {
      // As long as a wrong secret takes, so that timing does not tell which clients exist.
      if (presented.secret !== undefined) matchesHash(presented.secret, undefined);
      throw failure('client authentication failed');
    }
    const context = new RequestAuthContext(request, `${realm.issuer}${endpointPath}`, this.certificateOf);
    // A secret's check answers at once: awaited only when it is a promise (an assertion's, a certificate's).
    const verified = method.verify(client, presented, context);
    if (!(typeof verified === 'boolean' ? verified : await verified)) throw failure('client authentication failed');
    return client;
  }
}
