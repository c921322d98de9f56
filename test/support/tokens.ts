import { randomBytes, randomUUID } from 'node:crypto';
import type { Store } from '../../src/store/index.js';
import type { TokenRecord } from '../../src/store/tokens.js';
import { sha256 } from '../../src/secrets.js';

/**
 * Stores a token directly, for states the grants built so far cannot produce (expired
 * tokens, refresh tokens); returns its value. It carries its client's internal id, as the
 * issuer's do; none when there is no such client.
 */
export async function storeToken(
  store: Store,
  token: Pick<TokenRecord, 'realm' | 'clientId'> & Partial<TokenRecord> & { expiresInMs?: number },
): Promise<string> {
  const value = randomBytes(32).toString('base64url');
  const now = Date.now();
  const { expiresInMs = 600_000, ...fields } = token;
  const client = await store.clients.get(token.realm, token.clientId);
  await store.tokens.insert({
    hash: sha256(value),
    clientInternalId: client?.internalId ?? null,
    kind: 'access_token',
    grantId: randomUUID(),
    grantType: 'client_credentials',
    subject: token.clientId,
    userId: undefined,
    scope: '',
    issuedAt: new Date(now - 1000),
    expiresAt: new Date(now + expiresInMs),
    ...fields,
  });
  return value;
}
