import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import {
  ClientCreateSchema,
  ClientMetadataPatchSchema,
  type ClientMetadata,
  usesClientSecret,
} from '../records/client.js';
import { ClientRecordError, newClientMetadata, patchClientMetadata } from '../records/client-changes.js';
import { OAuthError } from '../errors.js';
import { clientRecordProblems } from '../profiles/fapi2.js';
import type { RequestRealm } from '../records/realm.js';
import { namedBriefly, scopeNames } from '../records/scope.js';
import type { Client, SecretChange } from '../store/clients.js';
import { randomSecret, sha256 } from '../secrets.js';
import type { AdminDeps } from './deps.js';
import { checkClientJourney } from './journey-references.js';
import { sectorIdentifierToCheck } from '../clients/sector-identifier.js';
import { conflict, notFound, parseInput } from './validate.js';

type Params = { Params: { realm: string; client_id: string } };

export function clientView(client: Client) {
  const { realm: _realm, secretHash: _secretHash, internalId: _internalId, issuedAt, ...record } = client;
  return { ...record, client_id_issued_at: issuedAt };
}

/** The response that reveals a new secret: the only time it is ever shown (RFC 7591 §3.2.1). */
const withSecret = (client: Client, secret: string | undefined) =>
  secret === undefined ? clientView(client) : { ...clientView(client), client_secret: secret, client_secret_expires_at: 0 };

/** The record `build` makes, consistent, and within the realm's profile (src/profiles/fapi2.ts). */
function checkedMetadata(realm: RequestRealm, build: () => ClientMetadata): ClientMetadata {
  try {
    const metadata = build();
    const problems = clientRecordProblems(realm, metadata);
    if (problems.length > 0) throw new OAuthError('invalid_request', problems.join('; '));
    return metadata;
  } catch (error) {
    if (error instanceof ClientRecordError) throw new OAuthError('invalid_request', error.message);
    throw error;
  }
}

/** `/admin/realms/{realm}/clients` (CONTRACT.md §5). */
export function clientRoutes({ store, sectorIdentifiers }: AdminDeps): FastifyPluginAsync {
  /** OpenID Connect Registration §5: a `sector_identifier_uri` that is set or changed, or whose redirect URIs changed, is fetched and must list them. */
  const checkSectorIdentifier = async (metadata: ClientMetadata, current?: ClientMetadata): Promise<void> => {
    const uri = sectorIdentifierToCheck(metadata, current);
    const problem = uri === undefined ? undefined : await sectorIdentifiers.problem(uri, metadata.redirect_uris);
    if (problem) throw new OAuthError('invalid_request', `sector_identifier_uri: ${problem}`);
  };

  const checkScopesExist = async (realm: string, scope: string | undefined): Promise<void> => {
    if (scope === undefined) return;
    const missing = await store.scopes.missing(realm, scopeNames(scope));
    if (missing.length > 0) throw new OAuthError('invalid_request', `scope: not defined in this realm: ${namedBriefly(missing)}`);
  };

  return async (app) => {
    app.get<Params>('/clients', async (request) => (await store.clients.list(request.params.realm)).map(clientView));

    app.post<Params>('/clients', async (request, reply) => {
      const realm = request.params.realm;
      const { client_id: requestedId, ...input } = parseInput(ClientCreateSchema, request.body);
      const metadata = checkedMetadata(request.realm, () => newClientMetadata(input));
      await checkScopesExist(realm, metadata.scope);
      checkClientJourney(request.realm, metadata.journey);
      await checkSectorIdentifier(metadata);
      const secret = usesClientSecret(metadata.token_endpoint_auth_method) ? randomSecret() : undefined;
      const client = await store.clients.create(realm, requestedId ?? randomUUID(), metadata, secret ? sha256(secret) : undefined);
      if (!client) throw conflict('a client with this client_id exists in the realm');
      return reply.code(201).send(withSecret(client, secret));
    });

    app.get<Params>('/clients/:client_id', async (request) => {
      const client = await store.clients.get(request.params.realm, request.params.client_id);
      if (!client) throw notFound('client');
      return clientView(client);
    });

    app.patch<Params>('/clients/:client_id', async (request) => {
      const { realm, client_id: clientId } = request.params;
      const patch = parseInput(ClientMetadataPatchSchema, request.body);
      await checkScopesExist(realm, patch.scope);
      checkClientJourney(request.realm, patch.journey);
      // The document is fetched before the row is locked; a change to what it was checked against meanwhile is a conflict.
      const before = await store.clients.get(realm, clientId);
      if (!before) throw notFound('client');
      const checked = checkedMetadata(request.realm, () => patchClientMetadata(before, patch));
      await checkSectorIdentifier(checked, before);
      let newSecret: string | undefined;
      const client = await store.clients.update(realm, clientId, (current) => {
        const metadata = checkedMetadata(request.realm, () => patchClientMetadata(current, patch));
        if (sectorIdentifierToCheck(metadata, checked) !== undefined) throw conflict('the client changed while its sector_identifier_uri was checked: send the change again');
        let secret: SecretChange = { keep: true };
        if (!usesClientSecret(metadata.token_endpoint_auth_method)) {
          secret = { hash: null };
        } else if (!current.secretHash) {
          newSecret = randomSecret(); // it now authenticates with a secret it never had
          secret = { hash: sha256(newSecret) };
        }
        return { metadata, secret };
      });
      if (!client) throw notFound('client');
      return withSecret(client, newSecret);
    });

    app.delete<Params>('/clients/:client_id', async (request, reply) => {
      if (!(await store.clients.delete(request.params.realm, request.params.client_id))) throw notFound('client');
      return reply.code(204).send();
    });

    app.post<Params>('/clients/:client_id/secret', async (request) => {
      const { realm, client_id: clientId } = request.params;
      const current = await store.clients.get(realm, clientId);
      if (!current) throw notFound('client');
      if (!usesClientSecret(current.token_endpoint_auth_method)) {
        throw new OAuthError('invalid_request', `a client using ${current.token_endpoint_auth_method} has no secret`);
      }
      const secret = randomSecret();
      if (!(await store.clients.rotateSecret(realm, clientId, sha256(secret)))) throw notFound('client');
      return { client_id: clientId, client_secret: secret };
    });
  };
}
