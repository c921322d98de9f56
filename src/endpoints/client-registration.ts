import { randomUUID } from 'node:crypto';
import type { AuditLog } from '../audit/audit-log.js';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { OutboundFetcher } from '../http/outbound-fetch.js';
import {
  type RegistrationCapabilities,
  RegistrationError,
  checkJwksUriTarget,
  registeredRecord,
  registrationView,
} from '../clients/registration-metadata.js';
import { registrationPolicy } from '../clients/registration-policy.js';
import { type SectorIdentifierFetcher, sectorIdentifierToCheck } from '../clients/sector-identifier.js';
import type { RegistrationAllowance } from '../records/client.js';
import { type ClientMetadata, usesClientSecret } from '../records/client.js';
import { OAuthError } from '../errors.js';
import type { RequestRealm } from '../records/realm.js';
import { scopeNames } from '../records/scope.js';
import type { Client, SecretChange } from '../store/clients.js';
import { isUuid } from '../store/db.js';
import { addressKey } from '../address-key.js';
import type { RateLimits } from '../rate-limits/rate-limits.js';
import type { Store } from '../store/index.js';
import { matchesHash, randomSecret, sha256 } from '../secrets.js';
import { clientRecordProblems } from '../profiles/fapi2.js';

/** Room for the largest metadata a record holds: 2 × 50 URIs of 2,000 characters and 20 JWKs. */
export const REGISTRATION_BODY_LIMIT = 256 * 1024;

const REGISTER_PATH = '/connect/register';

type ClientParams = { Params: { client_id: string } };

/** RFC 6750 §2.1: the bearer token of the Authorization header, if any. */
function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  return /^Bearer ([\x21-\x7E]+)$/i.exec(header)?.[1] ?? '';
}

/** RFC 6750 §3.1: a missing token is not an error of the token; a wrong one is. */
function invalidToken(realm: RequestRealm, presented: string | undefined, description: string): OAuthError {
  const challenge = `Bearer realm="${realm.name}"${presented === undefined ? '' : ', error="invalid_token"'}`;
  return new OAuthError('invalid_token', description, { headers: { 'www-authenticate': challenge } });
}

const registrationClientUri = (realm: RequestRealm, clientId: string) => `${realm.issuer}${REGISTER_PATH}/${clientId}`;

/**
 * What registration, read and update answer (RFC 7591 §3.2.1, RFC 7592 §3); never the stored
 * secret. `issuedAt`: seconds since the epoch.
 */
function registrationResponse(realm: RequestRealm, clientId: string, record: ClientMetadata, issuedAt: number, hasSecret: boolean) {
  return {
    client_id: clientId,
    client_id_issued_at: issuedAt,
    ...(hasSecret ? { client_secret_expires_at: 0 } : {}),
    registration_client_uri: registrationClientUri(realm, clientId),
    ...registrationView(record),
  };
}

/**
 * Dynamic client registration (RFC 7591 §3) at `{issuer}/connect/register`, and the client
 * configuration endpoint (RFC 7592) at `{issuer}/connect/register/{client_id}`.
 *
 * Bodies are JSON here, unlike every other endpoint: this plugin replaces the form parser
 * of its parent with a JSON one, for its own routes only.
 *
 * - Registration needs an initial access token (single use) unless the realm has
 *   `open_registration`; an open realm does not look at the Authorization header at all.
 * - A client asks for grants and scopes within the realm's `registration_grant_types` and
 *   `registration_scopes`, widened only by what its initial access token allows
 *   (src/clients/registration-policy.ts); the same holds for its updates.
 * - The registration access token is shown once, stored as SHA-256, and never rotated:
 *   RFC 7592 §3 allows rotation on read or update, and a client that misses the new token
 *   would lose its configuration endpoint. So reads and updates do not return it.
 * - A wrong token, a client that does not exist and a client an admin created (which has no
 *   registration access token) all answer the same 401 (RFC 7592 §2.1).
 */
export function clientRegistrationEndpoint(deps: {
  store: Store;
  capabilities: RegistrationCapabilities;
  rateLimits: RateLimits;
  outbound: OutboundFetcher;
  sectorIdentifiers: Pick<SectorIdentifierFetcher, 'problem'>;
  audit: AuditLog;
}): FastifyPluginAsync {
  const { store, capabilities, rateLimits, audit } = deps;

  /** Scopes, jwks_uri and sector_identifier_uri, which the synchronous rules cannot check; `current` was accepted before. */
  async function checkAgainstRealm(app: FastifyInstance, realm: RequestRealm, record: ClientMetadata, current?: ClientMetadata): Promise<void> {
    const keptJwksUri = current?.jwks_uri;
    // A client may ask only for scopes the realm defines: an undefined one could never be granted.
    const missing = await store.scopes.missing(realm.name, scopeNames(record.scope));
    if (missing.length > 0) throw new RegistrationError('invalid_client_metadata', `scope: not defined in this realm: ${missing.join(' ')}`);
    const profileProblems = clientRecordProblems(realm, record);
    if (profileProblems.length > 0) throw new RegistrationError('invalid_client_metadata', profileProblems.join('; '));
    if (record.jwks_uri !== undefined && record.jwks_uri !== keptJwksUri) await checkJwksUriTarget(record.jwks_uri, deps.outbound);
    // OpenID Connect Registration §5: fetched, it must list every redirect URI.
    const sectorUri = sectorIdentifierToCheck(record, current);
    const problem = sectorUri === undefined ? undefined : await deps.sectorIdentifiers.problem(sectorUri, record.redirect_uris);
    if (problem) throw new RegistrationError('invalid_client_metadata', `sector_identifier_uri: ${problem}`);
  }

  /**
   * RFC 7592 §2: the client named by the path, if the request carries its registration access
   * token, with what its initial access token allowed.
   */
  async function authorizedClient(request: FastifyRequest<ClientParams>): Promise<{ client: Client; allowance: RegistrationAllowance | undefined }> {
    const realm = request.realm;
    const token = bearerToken(request);
    if (token === undefined) throw invalidToken(realm, token, 'a registration access token is required');
    const clientId = request.params.client_id;
    const registration = isUuid(clientId) /* self-registered clients get uuids */ ? await store.initialAccessTokens.registration(realm.name, clientId) : undefined;
    const stored = registration?.tokenHash;
    const client = matchesHash(token, stored) ? await store.clients.get(realm.name, clientId) : undefined;
    if (!client) throw invalidToken(realm, token, 'the registration access token is not valid');
    await rateLimits.client(realm, 'registration', client.client_id);
    return { client, allowance: registration?.allowance };
  }

  return async (app) => {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser(
      'application/json',
      { parseAs: 'string', bodyLimit: REGISTRATION_BODY_LIMIT },
      app.getDefaultJsonParser('error', 'error'),
    );
    // RFC 7591 §3.2.2 codes are not the server's OAuthError codes; everything else goes to the common handler.
    app.setErrorHandler(async (error, _request, reply) => {
      if (!(error instanceof RegistrationError)) throw error;
      return reply.code(400).header('cache-control', 'no-store').header('pragma', 'no-cache').send(error.toJSON());
    });

    app.post(REGISTER_PATH, async (request, reply) => {
      const realm = request.realm;
      let initialAccessTokenHash: Buffer | undefined;
      let allowance: RegistrationAllowance | undefined;
      if (!realm.settings.open_registration) {
        const token = bearerToken(request);
        if (!token) throw invalidToken(realm, token, 'an initial access token is required');
        initialAccessTokenHash = sha256(token);
        // Checked before the metadata, so that without a usable token nothing is said about it.
        const usable = await store.initialAccessTokens.usable(realm.name, initialAccessTokenHash);
        if (!usable) throw invalidToken(realm, token, 'the initial access token is not valid');
        allowance = usable.allowance;
      }
      // No client exists yet, and an initial access token serves once: registrations count per address.
      await rateLimits.client(realm, 'registration', `address:${addressKey(request.ip)}`);

      const record = registeredRecord(request.body, capabilities, registrationPolicy(realm.settings, allowance));
      await checkAgainstRealm(app, realm, record);
      const clientId = randomUUID();
      const secret = usesClientSecret(record.token_endpoint_auth_method) ? randomSecret() : undefined;
      const registrationAccessToken = randomSecret();
      const created = await store.initialAccessTokens.register(
        { realm: realm.name, clientId, metadata: record, secretHash: secret === undefined ? undefined : sha256(secret), registrationTokenHash: sha256(registrationAccessToken), allowance },
        initialAccessTokenHash,
      );
      // Another registration spent the token since it was checked.
      if (!created) throw invalidToken(realm, '', 'the initial access token is not valid');
      audit.record({ realm: realm.name, type: 'client.created', clientId, address: request.ip, details: { via: 'registration' } });

      return reply.code(201).send({
        ...registrationResponse(realm, clientId, record, created.issuedAt, secret !== undefined),
        ...(secret ? { client_secret: secret } : {}),
        registration_access_token: registrationAccessToken,
      });
    });

    app.get<ClientParams>(`${REGISTER_PATH}/:client_id`, async (request) => {
      const { client } = await authorizedClient(request);
      return registrationResponse(request.realm, client.client_id, client, client.issuedAt, client.secretHash !== undefined);
    });

    // RFC 7592 §2.2: a full replacement; what is omitted takes its default. The client keeps
    // to the realm's policy and its registration's allowance, or to what it already has.
    app.put<ClientParams>(`${REGISTER_PATH}/:client_id`, async (request) => {
      const realm = request.realm;
      const { client: current, allowance } = await authorizedClient(request);
      const body = request.body as Record<string, unknown> | null;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw new RegistrationError('invalid_client_metadata', 'the body must be a JSON object');
      }
      if (body.client_id !== current.client_id) throw new RegistrationError('invalid_client_metadata', 'client_id: must be the client_id of this client');
      const presentedSecret = body.client_secret;
      if (presentedSecret !== undefined && typeof presentedSecret !== 'string') {
        throw new RegistrationError('invalid_client_metadata', 'client_secret: must be a string');
      }
      const policy = (client: Client) => registrationPolicy(realm.settings, allowance, client);
      await checkAgainstRealm(app, realm, registeredRecord(body, capabilities, policy(current), current), current);

      let newSecret: string | undefined;
      const updated = await store.clients.update(realm.name, current.client_id, (locked) => {
        // RFC 7592 §2.2: a client_secret sent must be the current one; a client never chooses its secret.
        if (presentedSecret !== undefined && !matchesHash(presentedSecret, locked.secretHash)) {
          throw new RegistrationError('invalid_client_metadata', 'client_secret: does not match the current secret');
        }
        const metadata = registeredRecord(body, capabilities, policy(locked), locked);
        let secret: SecretChange = { keep: true };
        if (!usesClientSecret(metadata.token_endpoint_auth_method)) {
          secret = { hash: null };
        } else if (!locked.secretHash) {
          newSecret = randomSecret(); // it now authenticates with a secret it never had
          secret = { hash: sha256(newSecret) };
        }
        return { metadata, secret };
      });
      if (!updated) throw invalidToken(realm, '', 'the registration access token is not valid');
      audit.record({ realm: realm.name, type: 'client.updated', clientId: updated.client_id, address: request.ip, details: { via: 'registration' } });
      return {
        ...registrationResponse(realm, updated.client_id, updated, updated.issuedAt, updated.secretHash !== undefined),
        ...(newSecret ? { client_secret: newSecret } : {}),
      };
    });

    // RFC 7592 §2.3: the client goes, and its tokens, codes and grants with it.
    app.delete<ClientParams>(`${REGISTER_PATH}/:client_id`, async (request, reply) => {
      const { client } = await authorizedClient(request);
      if (!(await store.clients.delete(request.realm.name, client.client_id))) {
        throw invalidToken(request.realm, '', 'the registration access token is not valid');
      }
      audit.record({ realm: request.realm.name, type: 'client.deleted', clientId: client.client_id, address: request.ip, details: { via: 'registration' } });
      return reply.code(204).send();
    });
  };
}
