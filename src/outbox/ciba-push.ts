import { approvedTokens } from '../grants/poll.js';
import { CIBA_GRANT } from '../records/client.js';
import { issuerOf } from '../records/realm-names.js';
import type { RequestRealm } from '../records/realm.js';
import type { HeldPush } from '../store/ciba-push.js';
import type { Store } from '../store/index.js';
import type { OutboxEntry } from '../store/outbox.js';
import type { MintedTokens, TokenIssuer } from '../tokens/issuer.js';
import type { KeyEncryption } from '../tokens/key-encryption.js';
import { type PingSecrets, unsealPing } from './ciba-ping.js';
import type { OutboxSender } from './deliverer.js';

/** The JSON a push POSTs (CIBA Core §10.3.1, §12): the token response or the error, with the request's auth_req_id. */
type PushMessage = Record<string, unknown> & { auth_req_id: string };

export interface CibaPushDeps {
  store: Pick<Store, 'transaction' | 'realms' | 'clients' | 'pendingAuthorizations'>;
  issuer: Pick<TokenIssuer, 'userTokens'>;
  encryption: KeyEncryption;
  baseUrl: string;
}

/** A sealed token response is bound to its request: copied to another row or realm, it does not open. */
const responseContext = (realm: string, requestId: string) => `ciba push ${realm} ${requestId}`;

/**
 * Sends a CIBA push (CIBA Core §10.3): a JSON POST, with the request's `client_notification_token`
 * as Bearer token, of the token response plus `auth_req_id` once the person approved, or of
 * `access_denied` / `expired_token` with it. Its outbox entry was queued with the request, due at
 * its expiry; the answer made it due at once (src/store/pending-authorizations.ts).
 *
 * The first try mints the tokens: under the request's row lock it moves the request from
 * approved to issued and writes them, so that of two instances only one mints; the response is
 * then kept sealed with the master key, and every later try sends that same response. If the
 * instance dies between the two, the tokens are never sent and expire unused: the push is given up.
 */
export function cibaPushSender(deps: CibaPushDeps): OutboxSender {
  return {
    async request(entry: OutboxEntry) {
      const { request: requestId, client: clientId } = entry.payload;
      if (typeof requestId !== 'string' || typeof clientId !== 'string') return undefined;
      const message = await pushMessage(deps, entry.realm, requestId, clientId);
      if (message === undefined || message === 'later') return message;
      return {
        headers: { 'content-type': 'application/json', authorization: `Bearer ${message.token}` },
        body: JSON.stringify(message.body),
      };
    },
  };
}

async function pushMessage(deps: CibaPushDeps, realmName: string, requestId: string, clientId: string) {
  // Read before the transaction: the embedded store has one connection, which the transaction holds.
  const realm = await requestRealm(deps, realmName);
  const client = realm && (await deps.store.clients.get(realmName, clientId));
  if (!realm || !client) return undefined;

  type Outcome = { secrets: PingSecrets; body: PushMessage } | { secrets: PingSecrets; minted: MintedTokens } | 'later' | undefined;
  const outcome = await deps.store.transaction(async (tx): Promise<Outcome> => {
    const rows = tx.pendingAuthorizations.push;
    const held = await rows.hold(realmName, requestId);
    const secrets = held && unsealPing(deps.encryption, realmName, requestId, held.sealedNotification);
    if (!held || !secrets) return undefined;
    const told = settled(deps, held, secrets, realmName, requestId);
    if (told !== 'approved') return told === undefined || told === 'later' ? told : { secrets, body: told };
    const approved = held.state as Extract<HeldPush['state'], { state: 'approved' }>;
    const tokens = await approvedTokens(tx, deps.issuer, { realm, client, audience: undefined }, CIBA_GRANT, approved, secrets.auth_req_id);
    if ('refusal' in tokens) {
      await rows.settle(realmName, requestId, 'denied');
      return { secrets, body: errorOf(secrets, 'access_denied', tokens.refusal.description ?? 'the request can no longer be granted') };
    }
    await rows.settle(realmName, requestId, 'issued');
    return { secrets, minted: tokens.written };
  });
  if (outcome === undefined || outcome === 'later') return outcome;
  const body = 'minted' in outcome ? await kept(deps, realmName, requestId, outcome.secrets, outcome.minted) : outcome.body;
  return { token: outcome.secrets.client_notification_token, body };
}

/** What the request's state tells, without minting: `approved` when the tokens are to be minted now. */
function settled(
  deps: CibaPushDeps,
  held: HeldPush,
  secrets: PingSecrets,
  realm: string,
  requestId: string,
): PushMessage | 'approved' | 'later' | undefined {
  const state = held.state;
  switch (state.state) {
    case 'pending':
      return state.expired ? errorOf(secrets, 'expired_token', 'the request expired before the person answered') : 'later';
    case 'denied':
      return errorOf(secrets, 'access_denied', 'the person denied the request');
    case 'issued':
      return state.sealedResponse && openResponse(deps.encryption, realm, requestId, state.sealedResponse);
    case 'approved':
      return 'approved';
  }
}

/** Signs the minted tokens, and keeps their response sealed for the retries. */
async function kept(deps: CibaPushDeps, realm: string, requestId: string, secrets: PingSecrets, minted: MintedTokens): Promise<PushMessage> {
  const body: PushMessage = { ...(await minted.complete()), auth_req_id: secrets.auth_req_id };
  const sealed = deps.encryption.encrypt(Buffer.from(JSON.stringify(body)), responseContext(realm, requestId));
  await deps.store.pendingAuthorizations.push.keepResponse(realm, requestId, sealed);
  return body;
}

function openResponse(encryption: KeyEncryption, realm: string, requestId: string, sealed: Buffer): PushMessage | undefined {
  try {
    return JSON.parse(encryption.decrypt(sealed, responseContext(realm, requestId)).toString('utf8')) as PushMessage;
  } catch {
    return undefined;
  }
}

const errorOf = (secrets: PingSecrets, error: string, description: string): PushMessage => ({ error, error_description: description, auth_req_id: secrets.auth_req_id });

async function requestRealm(deps: CibaPushDeps, name: string): Promise<RequestRealm | undefined> {
  const realm = await deps.store.realms.get(name);
  return realm && { name: realm.name, issuer: issuerOf(deps.baseUrl, realm.name), settings: realm.settings, journeys: realm.journeys };
}
