import { randomBytes } from 'node:crypto';
import { type JSONWebKeySet, createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEASE_MS } from '../../src/outbox/deliverer.js';
import { type ProcessStore, type RunningServer, admin, buildOnce, createProcessStore, startServer, stopAll } from '../support/process.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { testStoreKind } from '../support/store.js';

const ADMIN_TOKEN = 'outbox-instances-admin-token-0123456789';
/** Both instances serve one issuer, as behind a load balancer. */
const BASE_URL = 'https://auth.example';
const REALM = 'shop';

/**
 * CONTRACT.md §12: a logout token queued by an instance that dies before it is acknowledged is
 * delivered by another. Instance A ends a session and starts the delivery; the receiver holds
 * A's request open, and A is killed (SIGKILL, no shutdown); instance B, started afterwards on the
 * same PostgreSQL database, delivers the same token (same jti) once A's claim has run out.
 */
describe.skipIf(testStoreKind() !== 'postgres')('the outbox across instances (PostgreSQL)', () => {
  let store: ProcessStore;
  let receiver: Receiver;
  let a: RunningServer;
  let b: RunningServer;

  beforeAll(async () => {
    await buildOnce();
    store = await createProcessStore();
    receiver = await startReceiver('/bc');
  }, 120_000);
  afterAll(async () => {
    await stopAll();
    await receiver?.close();
    await store?.dispose();
  });

  it('a delivery queued on instance A, which is killed mid-delivery, is delivered by instance B', async () => {
    const env = { ...store.env, ADMIN_TOKEN, BASE_URL, OUTBOUND_ALLOW: '127.0.0.1' };
    a = await startServer(env);
    await admin(a, ADMIN_TOKEN, 'POST', '/realms', { name: REALM, settings: {} });
    const client = await admin<{ client_id: string }>(a, ADMIN_TOKEN, 'POST', `/realms/${REALM}/clients`, {
      redirect_uris: ['https://app.example/cb'],
      backchannel_logout_uri: receiver.url,
    });
    await admin(a, ADMIN_TOKEN, 'POST', `/realms/${REALM}/users`, { username: 'alice', password: 'correct horse battery' });

    // A session that gave the client a code, as a sign-in leaves it (the browser flow is another test's).
    const db = new pg.Client({ connectionString: store.env.DATABASE_URL });
    await db.connect();
    let sid: string;
    try {
      const session = await db.query<{ sid: string; user_id: string }>(
        `INSERT INTO sessions (secret_hash, realm, user_id, auth_time, amr, expires_at, clients)
         SELECT $1, realm, id, now(), '{pwd}', now() + interval '1 hour', ARRAY[$3::text] FROM users WHERE realm = $2 AND username = 'alice'
         RETURNING sid, user_id`,
        [randomBytes(32), REALM, client.client_id],
      );
      sid = session.rows[0]!.sid;
    } finally {
      await db.end();
    }

    receiver.answer = (n) => (n === 1 ? 'hang' : 200);
    const ended = Date.now();
    await admin(a, ADMIN_TOKEN, 'DELETE', `/realms/${REALM}/users/alice/sessions`);
    const [first] = await receiver.waitFor(1, 10_000);
    expect(Date.now() - ended).toBeLessThan(10_000);
    a.process.signal('SIGKILL');
    await a.process.exited;

    b = await startServer(env);
    const received = await receiver.waitFor(2, LEASE_MS + 15_000);
    const jwks = (await (await fetch(`${b.baseUrl}/oauth2/${REALM}/connect/jwk_uri`)).json()) as JSONWebKeySet;
    const { payload } = await jwtVerify(new URLSearchParams(received[1]!.body).get('logout_token')!, createLocalJWKSet(jwks), {
      issuer: `${BASE_URL}/oauth2/${REALM}`,
      audience: client.client_id,
      typ: 'logout+jwt',
    });
    expect(payload.sid).toBe(sid);
    expect(payload.jti).toBe(decodeJwt(new URLSearchParams(first!.body).get('logout_token')!).jti);
    // Acknowledged by B: never sent again.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(receiver.received).toHaveLength(2);
  }, 120_000);
});
