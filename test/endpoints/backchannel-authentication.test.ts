import { createHash, randomUUID } from 'node:crypto';
import { type IncomingMessage, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import { type JWK, SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { BASE_URL, type TestApp, freePort, startTestApp } from '../support/app.js';
import type { TestClock } from '../support/clock.js';
import { type KeyPair, keyPair } from '../support/keys.js';
import { basic, postForm, realmPath } from '../support/oauth.js';
import { type TestUser, createUser, passwordTokens } from '../support/users.js';

const CIBA = 'urn:openid:params:grant-type:ciba';

/** As startTestApp, with a logger whose JSON lines the test reads. */
async function startApp(): Promise<TestApp & { clock: TestClock; logs: string[] }> {
  const logs: string[] = [];
  // The notification tests' receiver listens on loopback, which only OUTBOUND_ALLOW lets the server reach.
  const t = await startTestApp({ logger: createLogger('info', { write: (line: string) => void logs.push(line) }), outboundAllow: ['127.0.0.1'], clock: true });
  return { ...t, logs };
}

interface CibaClient {
  clientId: string;
  secret: string;
}

const nowSeconds = (): number => Math.floor(Date.now() / 1000);
const issuerOf = (realm: string): string => `${BASE_URL}${realmPath(realm)}`;
const sha256Hex = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex');

/** Claims with `undefined` values left out. */
const defined = (claims: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(claims).filter(([, value]) => value !== undefined));

function sign(key: KeyPair, claims: Record<string, unknown>): Promise<string> {
  return new SignJWT(defined(claims)).setProtectedHeader({ alg: key.alg, kid: key.kid }).sign(key.privateKey);
}

/** Every CIBA error is RFC 6749 §5.2 JSON: `{error, error_description}`, no-store; `because` pins the reason. */
function expectError(response: LightMyRequestResponse, status: number, error: string, because: RegExp = /\S/): void {
  expect({ status: response.statusCode, body: response.json() }).toEqual({
    status,
    body: { error, error_description: expect.stringMatching(because) },
  });
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(response.headers['cache-control']).toBe('no-store');
}

interface Answer {
  auth_req_id: string;
  expires_in: number;
  interval: number;
}

function expectAnswer(response: LightMyRequestResponse): Answer {
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers['cache-control']).toBe('no-store');
  const body = response.json() as Answer;
  expect(Object.keys(body).sort()).toEqual(['auth_req_id', 'expires_in', 'interval']);
  expect(body.auth_req_id).toMatch(/^[A-Za-z0-9_-]{43}$/);
  return body;
}

interface PendingRow {
  id: string;
  kind: string;
  client_id: string;
  scope: string;
  user_id: string;
  binding_message: string | null;
  interval_seconds: number;
  expires_at: Date;
  secret_hash: Uint8Array;
  whole: string;
}

describe('POST /bc-authorize', () => {
  let t: TestApp & { clock: TestClock; logs: string[] };
  const realm = 'ciba';
  const issuer = issuerOf(realm);
  const path = `${realmPath(realm)}/bc-authorize`;
  let key: KeyPair;
  let client: CibaClient;
  let alice: TestUser;

  async function cibaClient(inRealm: string, keys: KeyPair[], extra: Record<string, unknown> = {}): Promise<CibaClient> {
    const created = await t.admin.createClient(inRealm, {
      client_name: 'Point of sale',
      grant_types: [CIBA, 'password'],
      scope: 'openid profile',
      jwks: { keys: keys.map((k) => k.publicJwk) },
      ...extra,
    });
    return { clientId: created.client_id, secret: created.client_secret as string };
  }

  function bcAuthorize(form: Record<string, string | string[]>, as: CibaClient = client, at = path): Promise<LightMyRequestResponse> {
    return postForm(t.app, at, form, { authorization: basic(as.clientId, as.secret) });
  }

  /** A valid request object of `client` for alice, which `claims` change (undefined removes one). */
  function requestObject(claims: Record<string, unknown> = {}, signer: KeyPair = key): Promise<string> {
    const now = nowSeconds();
    return sign(signer, {
      iss: client.clientId,
      aud: issuer,
      iat: now,
      nbf: now,
      exp: now + 300,
      jti: randomUUID(),
      scope: 'openid',
      login_hint: 'alice',
      ...claims,
    });
  }

  /** A login_hint_token of `client` naming alice by her sub, which `claims` change. */
  function loginHintToken(claims: Record<string, unknown> = {}, signer: KeyPair = key): Promise<string> {
    return sign(signer, {
      iss: client.clientId,
      aud: issuer,
      exp: nowSeconds() + 300,
      sub_id: { format: 'opaque', id: alice.sub },
      ...claims,
    });
  }

  async function pendingRows(): Promise<PendingRow[]> {
    const result = await t.store.db.query<PendingRow>(
      `SELECT id, kind, client_id, scope, user_id, binding_message, interval_seconds, expires_at, secret_hash, row_to_json(p)::text AS whole
         FROM pending_authorizations p WHERE realm = $1 ORDER BY created_at`,
      [realm],
    );
    return result.rows;
  }

  async function pendingRow(authReqId: string): Promise<PendingRow | undefined> {
    return (await pendingRows()).find((row) => Buffer.from(row.secret_hash).toString('hex') === sha256Hex(authReqId));
  }

  beforeAll(async () => {
    t = await startApp();
    await t.admin.createRealm(realm);
    key = await keyPair('ES256');
    client = await cibaClient(realm, [key]);
    alice = await createUser(t.admin, realm, 'alice', { claims: { email: 'Alice@Example.com' } });
  });
  afterAll(() => t?.close());

  describe('answers', () => {
    it('{auth_req_id, expires_in, interval} from the realm settings, and stores the request for alice by the hash of auth_req_id only', async () => {
      const response = await bcAuthorize({ scope: 'openid profile', login_hint: 'alice', binding_message: 'Pay 12 € at W2' });
      const body = expectAnswer(response);
      expect(body).toMatchObject({ expires_in: 600, interval: 2 });

      const row = await pendingRow(body.auth_req_id);
      expect(row).toMatchObject({
        kind: 'ciba',
        client_id: client.clientId,
        scope: 'openid profile',
        user_id: alice.sub,
        binding_message: 'Pay 12 € at W2',
        interval_seconds: 2,
      });
      const lifetime = row!.expires_at.getTime() / 1000 - nowSeconds();
      expect(lifetime).toBeGreaterThan(590);
      expect(lifetime).toBeLessThanOrEqual(601);
      for (const stored of await pendingRows()) expect(stored.whole).not.toContain(body.auth_req_id);
    });

    it('draws a new auth_req_id for each request', async () => {
      const first = expectAnswer(await bcAuthorize({ scope: 'openid', login_hint: 'alice' }));
      const second = expectAnswer(await bcAuthorize({ scope: 'openid', login_hint: 'alice' }));
      expect(first.auth_req_id).not.toBe(second.auth_req_id);
    });

    it('finds the username regardless of case', async () => {
      const body = expectAnswer(await bcAuthorize({ scope: 'openid', login_hint: 'ALICE' }));
      expect((await pendingRow(body.auth_req_id))?.user_id).toBe(alice.sub);
    });

    it('shortens expires_in to a smaller requested_expiry, and keeps ciba_lifetime for a larger one', async () => {
      const shorter = expectAnswer(await bcAuthorize({ scope: 'openid', login_hint: 'alice', requested_expiry: '30' }));
      expect(shorter.expires_in).toBe(30);
      const lifetime = (await pendingRow(shorter.auth_req_id))!.expires_at.getTime() / 1000 - nowSeconds();
      expect(lifetime).toBeGreaterThan(20);
      expect(lifetime).toBeLessThanOrEqual(31);
      const longer = expectAnswer(await bcAuthorize({ scope: 'openid', login_hint: 'alice', requested_expiry: '86400' }));
      expect(longer.expires_in).toBe(600);
    });

    it('follows the realm ciba_lifetime and ciba_poll_interval', async () => {
      await t.admin.createRealm('ciba-short', { ciba_lifetime: 120, ciba_poll_interval: 7 });
      const other = await cibaClient('ciba-short', [key]);
      await createUser(t.admin, 'ciba-short', 'bob');
      const response = await bcAuthorize({ scope: 'openid', login_hint: 'bob' }, other, `${realmPath('ciba-short')}/bc-authorize`);
      expect(expectAnswer(response)).toMatchObject({ expires_in: 120, interval: 7 });
    });

    it('ignores user_code, acr_values and client_notification_token', async () => {
      const response = await bcAuthorize({
        scope: 'openid',
        login_hint: 'alice',
        user_code: '1234',
        acr_values: 'urn:mace:incommon:iap:silver',
        client_notification_token: 'not-used-in-poll-mode',
      });
      expectAnswer(response);
    });
  });

  describe('the client', () => {
    it('must authenticate', async () => {
      const response = await postForm(t.app, path, { scope: 'openid', login_hint: 'alice' });
      expectError(response, 401, 'invalid_client');
      const wrong = await bcAuthorize({ scope: 'openid', login_hint: 'alice' }, { ...client, secret: 'wrong' });
      expectError(wrong, 401, 'invalid_client');
      expect(wrong.headers['www-authenticate']).toBe(`Basic realm="${realm}"`);
    });

    it('must be confidential: a public client is unauthorized_client', async () => {
      const created = await t.admin.createClient(realm, { client_type: 'public', grant_types: [CIBA], scope: 'openid' });
      const response = await postForm(t.app, path, { client_id: created.client_id, scope: 'openid', login_hint: 'alice' });
      expectError(response, 400, 'unauthorized_client');
    });

    it('must have the CIBA grant', async () => {
      const other = await cibaClient(realm, [key], { grant_types: ['client_credentials'] });
      expectError(await bcAuthorize({ scope: 'openid', login_hint: 'alice' }, other), 400, 'unauthorized_client');
    });
  });

  describe('scope', () => {
    it.each([
      ['missing', {}],
      ['without openid', { scope: 'profile' }],
      ['outside the client scope', { scope: 'openid email' }],
      ['malformed', { scope: 'openid "x"' }],
    ])('%s is invalid_scope', async (_label, form) => {
      expectError(await bcAuthorize({ login_hint: 'alice', ...form }), 400, 'invalid_scope');
    });
  });

  describe('hints', () => {
    it('needs one: none is invalid_request', async () => {
      expectError(await bcAuthorize({ scope: 'openid' }), 400, 'invalid_request');
    });

    it('needs only one: two are invalid_request', async () => {
      expectError(await bcAuthorize({ scope: 'openid', login_hint: 'alice', login_hint_token: await loginHintToken() }), 400, 'invalid_request');
      const idToken = (await passwordTokens(t.app, realm, client, alice, 'openid')).id_token!;
      expectError(await bcAuthorize({ scope: 'openid', login_hint: 'alice', id_token_hint: idToken }), 400, 'invalid_request');
    });

    it('refuses a repeated parameter', async () => {
      expectError(await bcAuthorize({ scope: 'openid', login_hint: ['alice', 'bob'] }), 400, 'invalid_request');
    });

    it('an unknown username is unknown_user_id', async () => {
      expectError(await bcAuthorize({ scope: 'openid', login_hint: 'nobody' }), 400, 'unknown_user_id');
    });

    it('a username with a NUL is refused without a fault', async () => {
      const response = await bcAuthorize({ scope: 'openid', login_hint: 'ali\u0000ce' });
      expect(response.statusCode).toBe(400);
    });

    describe('id_token_hint', () => {
      it('names the person of an ID token this realm issued to the client', async () => {
        const idToken = (await passwordTokens(t.app, realm, client, alice, 'openid')).id_token!;
        const body = expectAnswer(await bcAuthorize({ scope: 'openid', id_token_hint: idToken }));
        expect((await pendingRow(body.auth_req_id))?.user_id).toBe(alice.sub);
      });

      it('accepts an expired ID token', async () => {
        await t.admin.createRealm('ciba-expired', { access_token_lifetime: 1 });
        const other = await cibaClient('ciba-expired', [key]);
        const carol = await createUser(t.admin, 'ciba-expired', 'carol');
        const idToken = (await passwordTokens(t.app, 'ciba-expired', other, carol, 'openid')).id_token!;
        await t.clock.advance(2100);
        const response = await bcAuthorize({ scope: 'openid', id_token_hint: idToken }, other, `${realmPath('ciba-expired')}/bc-authorize`);
        expectAnswer(response);
      });

      it("refuses another realm's ID token", async () => {
        await t.admin.createRealm('ciba-other');
        const other = await cibaClient('ciba-other', [key]);
        const dave = await createUser(t.admin, 'ciba-other', 'dave');
        const idToken = (await passwordTokens(t.app, 'ciba-other', other, dave, 'openid')).id_token!;
        expectError(await bcAuthorize({ scope: 'openid', id_token_hint: idToken }), 400, 'invalid_request');
      });

      it("refuses an ID token of another client of the realm", async () => {
        const other = await cibaClient(realm, [key]);
        const idToken = (await passwordTokens(t.app, realm, other, alice, 'openid')).id_token!;
        expectError(await bcAuthorize({ scope: 'openid', id_token_hint: idToken }), 400, 'invalid_request');
      });

      it('refuses a forged ID token carrying a key id of the realm', async () => {
        const jwks = (await t.app.inject({ method: 'GET', url: `${realmPath(realm)}/connect/jwk_uri` })).json() as { keys: JWK[] };
        const realmKid = jwks.keys.find((k) => k.alg === 'ES256')!.kid!;
        const forger = await keyPair('ES256', realmKid);
        const now = nowSeconds();
        const forged = await sign(forger, { iss: issuer, aud: client.clientId, sub: alice.sub, iat: now, exp: now + 300 });
        expectError(await bcAuthorize({ scope: 'openid', id_token_hint: forged }), 400, 'invalid_request');
        expectError(await bcAuthorize({ scope: 'openid', id_token_hint: 'not-a-jwt' }), 400, 'invalid_request');
      });
    });

    describe('login_hint_token', () => {
      it('names the person by an opaque subject identifier (her sub)', async () => {
        const body = expectAnswer(await bcAuthorize({ scope: 'openid', login_hint_token: await loginHintToken() }));
        expect((await pendingRow(body.auth_req_id))?.user_id).toBe(alice.sub);
      });

      it('names the person by an email subject identifier, regardless of case', async () => {
        const token = await loginHintToken({ sub_id: { format: 'email', email: 'alice@example.COM' } });
        const body = expectAnswer(await bcAuthorize({ scope: 'openid', login_hint_token: token }));
        expect((await pendingRow(body.auth_req_id))?.user_id).toBe(alice.sub);
      });

      it('an email names the one person it belongs to: no second person can be given it', async () => {
        const erin = await createUser(t.admin, realm, 'erin', { claims: { email: 'shared@example.com' } });
        const frank = await t.admin.request('POST', `/realms/${realm}/users`, { username: 'frank', password: 'pw-frank-0123456789', claims: { email: 'Shared@Example.com' } });
        expect(frank.statusCode, frank.body).toBe(409);
        const token = await loginHintToken({ sub_id: { format: 'email', email: 'shared@example.com' } });
        const body = expectAnswer(await bcAuthorize({ scope: 'openid', login_hint_token: token }));
        expect((await pendingRow(body.auth_req_id))?.user_id).toBe(erin.sub);
      });

      it('an unknown subject is unknown_user_id', async () => {
        for (const id of [randomUUID(), 'not-a-uuid']) {
          const token = await loginHintToken({ sub_id: { format: 'opaque', id } });
          expectError(await bcAuthorize({ scope: 'openid', login_hint_token: token }), 400, 'unknown_user_id');
        }
      });

      it('an expired one is expired_login_hint_token', async () => {
        const token = await loginHintToken({ exp: nowSeconds() - 120 });
        expectError(await bcAuthorize({ scope: 'openid', login_hint_token: token }), 400, 'expired_login_hint_token');
      });

      it('one signed by another key, for another audience, or without exp or sub_id is invalid_request', async () => {
        const stranger = await keyPair('ES256', key.kid);
        for (const token of [
          await loginHintToken({}, stranger),
          await loginHintToken({ aud: 'https://elsewhere.test' }),
          await loginHintToken({ iss: 'someone-else' }),
          await loginHintToken({ exp: undefined }),
          await loginHintToken({ sub_id: undefined }),
          await loginHintToken({ sub_id: { format: 'username', username: 'alice' } }),
          'garbage',
        ]) {
          expectError(await bcAuthorize({ scope: 'openid', login_hint_token: token }), 400, 'invalid_request');
        }
      });
    });
  });

  describe('binding_message', () => {
    it('may have 64 characters, counted as characters rather than UTF-16 units', async () => {
      expectAnswer(await bcAuthorize({ scope: 'openid', login_hint: 'alice', binding_message: 'x'.repeat(64) }));
      expectAnswer(await bcAuthorize({ scope: 'openid', login_hint: 'alice', binding_message: '😀'.repeat(64) }));
    });

    it.each([
      ['too long', 'x'.repeat(65)],
      ['with a newline', 'Pay\n12'],
      ['with a bell', 'Pay\u0007'],
      ['with a NUL', 'Pay\u0000'],
      ['with DEL', 'Pay\u007f'],
      ['with a C1 control', 'Pay\u0085'],
      // Cf, invisible format characters: the person would read another message (CONTRACT.md §7).
      ['with a right-to-left override', 'Pay 12 \u202E€ 0001'],
      ['with a zero-width space', 'Pay\u200B12'],
      ['with a byte order mark', '\uFEFFPay 12'],
      ['blank', '   '],
    ])('%s is invalid_binding_message', async (_label, message) => {
      expectError(await bcAuthorize({ scope: 'openid', login_hint: 'alice', binding_message: message }), 400, 'invalid_binding_message');
    });
  });

  describe('requested_expiry', () => {
    it.each(['0', '-5', '1.5', '1e3', 'soon', ' 30'])('%j is invalid_request', async (value) => {
      expectError(await bcAuthorize({ scope: 'openid', login_hint: 'alice', requested_expiry: value }), 400, 'invalid_request');
    });
  });

  describe('a signed request object', () => {
    it('carries every parameter: scope, hint, binding_message, requested_expiry as a number', async () => {
      const jwt = await requestObject({ scope: 'openid profile', binding_message: 'Signed 42', requested_expiry: 45 });
      const body = expectAnswer(await bcAuthorize({ request: jwt }));
      expect(body.expires_in).toBe(45);
      expect(await pendingRow(body.auth_req_id)).toMatchObject({ user_id: alice.sub, scope: 'openid profile', binding_message: 'Signed 42' });
    });

    it('may name the endpoint URL as audience, and give requested_expiry as a string', async () => {
      expectAnswer(await bcAuthorize({ request: await requestObject({ aud: `${issuer}/bc-authorize` }) }));
      const body = expectAnswer(await bcAuthorize({ request: await requestObject({ aud: issuer, requested_expiry: '50' }) }));
      expect(body.expires_in).toBe(50);
    });

    it('refuses an aud array, even one naming the issuer alone (CONTRACT.md §7: one audience, a string)', async () => {
      for (const aud of [['https://elsewhere.test', issuer], [issuer]]) {
        expectError(await bcAuthorize({ request: await requestObject({ aud }) }), 400, 'invalid_request');
      }
    });

    it('its parameters are validated as form parameters are', async () => {
      expectError(await bcAuthorize({ request: await requestObject({ scope: 'profile' }) }), 400, 'invalid_scope');
      expectError(await bcAuthorize({ request: await requestObject({ login_hint: 'nobody' }) }), 400, 'unknown_user_id');
      expectError(await bcAuthorize({ request: await requestObject({ binding_message: 'a\nb' }) }), 400, 'invalid_binding_message');
      expectError(await bcAuthorize({ request: await requestObject({ requested_expiry: 0 }) }), 400, 'invalid_request');
      expectError(await bcAuthorize({ request: await requestObject({ requested_expiry: 1.5 }) }), 400, 'invalid_request');
      expectError(await bcAuthorize({ request: await requestObject({ login_hint: 42 }) }), 400, 'invalid_request');
      expectError(await bcAuthorize({ request: await requestObject({ login_hint: undefined }) }), 400, 'invalid_request');
    });

    it.each(['scope', 'login_hint', 'binding_message', 'requested_expiry', 'user_code'])(
      'refuses %s sent beside it, even with the same value',
      async (name) => {
        const values: Record<string, string> = { scope: 'openid', login_hint: 'alice', binding_message: 'hi', requested_expiry: '30', user_code: '1' };
        const jwt = await requestObject({ [name]: values[name] });
        expectError(await bcAuthorize({ request: jwt, [name]: values[name]! }), 400, 'invalid_request', new RegExp(`send ${name} inside it`));
      },
    );

    // Each case's claims are made when it runs: times taken when the file is collected would be
    // stale by then on a busy machine (the nbf case expired instead).
    it.each([
      ['another audience', () => ({ aud: 'https://elsewhere.test' }), /aud/],
      ['the token endpoint as audience', () => ({ aud: `${issuer}/access_token` }), /aud/],
      ['another issuer', () => ({ iss: 'someone-else' }), /iss/],
      ['no exp', () => ({ exp: undefined }), /no exp/],
      ['no nbf', () => ({ nbf: undefined }), /no nbf/],
      ['no iat', () => ({ iat: undefined }), /no iat/],
      ['no jti', () => ({ jti: undefined }), /no jti/],
      ['an empty jti', () => ({ jti: '' }), /jti/],
      ['exp more than 60 minutes after nbf', () => ({ exp: nowSeconds() + 3700 }), /60 minutes/],
      ['nbf in the future', () => ({ nbf: nowSeconds() + 600 }), /nbf/],
      ['iat in the future', () => ({ iat: nowSeconds() + 600 }), /iat/],
      ['nbf more than 60 minutes in the past', () => ({ nbf: nowSeconds() - 3630, iat: nowSeconds() - 3630, exp: nowSeconds() - 30 }), /nbf/],
      ['an expired exp', () => ({ exp: nowSeconds() - 120 }), /expired/],
      ['a non-numeric exp', () => ({ exp: 'tomorrow' }), /exp/],
    ])('with %s is invalid_request', async (_label, claims, because) => {
      expectError(await bcAuthorize({ request: await requestObject(claims()) }), 400, 'invalid_request', because);
    });

    it('is used once: a replayed jti is invalid_request', async () => {
      const jwt = await requestObject();
      expectAnswer(await bcAuthorize({ request: jwt }));
      expectError(await bcAuthorize({ request: jwt }), 400, 'invalid_request', /used already/);
      // Re-signed, the jti is still spent.
      const { jti } = JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()) as { jti: string };
      expectError(await bcAuthorize({ request: await requestObject({ jti }) }), 400, 'invalid_request', /used already/);
    });

    it("must be signed by one of the client's keys", async () => {
      const stranger = await keyPair('ES256', key.kid);
      expectError(await bcAuthorize({ request: await requestObject({}, stranger) }), 400, 'invalid_request');
      const unknownKid = await keyPair('ES256');
      expectError(await bcAuthorize({ request: await requestObject({}, unknownKid) }), 400, 'invalid_request');
    });

    it('refuses HS256 (even keyed with the client secret), alg none, and an unsigned claims set', async () => {
      const now = nowSeconds();
      const claims = { iss: client.clientId, aud: issuer, iat: now, nbf: now, exp: now + 300, scope: 'openid', login_hint: 'alice' };
      const hs256 = await new SignJWT({ ...claims, jti: randomUUID() })
        .setProtectedHeader({ alg: 'HS256' })
        .sign(new TextEncoder().encode(client.secret));
      const none = new UnsecuredJWT({ ...claims, jti: randomUUID() }).encode();
      const unsigned = Buffer.from(JSON.stringify({ ...claims, jti: randomUUID() })).toString('base64url');
      for (const jwt of [hs256, none, unsigned, `${none}AAAA`]) {
        const response = await bcAuthorize({ request: jwt });
        expectError(response, 400, 'invalid_request', /signed/);
        expect(response.body).not.toContain(client.secret);
      }
    });

    it('a client without keys cannot send one', async () => {
      const created = await t.admin.createClient(realm, { grant_types: [CIBA], scope: 'openid' });
      const keyless = { clientId: created.client_id, secret: created.client_secret as string };
      const now = nowSeconds();
      const jwt = await sign(key, { iss: keyless.clientId, aud: issuer, iat: now, nbf: now, exp: now + 300, jti: randomUUID(), scope: 'openid', login_hint: 'alice' });
      expectError(await bcAuthorize({ request: jwt }, keyless), 400, 'invalid_request');
    });
  });

  describe('the notification URL', () => {
    interface Received {
      request: IncomingMessage;
      body: string;
    }
    let server: Server;
    let port: number;
    const received: Received[] = [];
    let onReceived: (() => void) | undefined;

    beforeAll(async () => {
      server = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          if (request.url?.startsWith('/hang')) return; // never answers
          received.push({ request, body: Buffer.concat(chunks).toString('utf8') });
          response.writeHead(204).end();
          onReceived?.();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    const nextNotification = (): Promise<void> =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no notification within 5 s')), 5_000);
        onReceived = () => {
          clearTimeout(timer);
          resolve();
        };
      });

    it('is a realm setting: null by default, an http(s) URL or null when set', async () => {
      const read = await t.admin.request('GET', `/realms/${realm}`);
      expect((read.json() as { settings: Record<string, unknown> }).settings.ciba_notification_url).toBeNull();
      for (const bad of ['ftp://x.test/hook', 'not a url', 42]) {
        const response = await t.admin.request('PATCH', `/realms/${realm}`, { settings: { ciba_notification_url: bad } });
        expect(response.statusCode).toBe(400);
      }
      const set = await t.admin.request('PATCH', `/realms/${realm}`, { settings: { ciba_notification_url: 'https://hooks.test/ciba' } });
      expect(set.statusCode).toBe(200);
      const cleared = await t.admin.request('PATCH', `/realms/${realm}`, { settings: { ciba_notification_url: null } });
      expect((cleared.json() as { settings: Record<string, unknown> }).settings.ciba_notification_url).toBeNull();
    });

    it('receives each new request, named by its public id and never by its auth_req_id', async () => {
      await t.admin.createRealm('ciba-notify', { ciba_notification_url: `http://127.0.0.1:${port}/hook?key=receiver-secret` });
      const other = await cibaClient('ciba-notify', [key]);
      await createUser(t.admin, 'ciba-notify', 'gina');
      const arrived = nextNotification();
      const response = await bcAuthorize(
        { scope: 'openid profile', login_hint: 'gina', binding_message: 'Approve W2' },
        other,
        `${realmPath('ciba-notify')}/bc-authorize`,
      );
      const answer = expectAnswer(response);
      await arrived;

      const { request, body } = received.at(-1)!;
      expect(request.method).toBe('POST');
      expect(request.url).toBe('/hook?key=receiver-secret');
      expect(request.headers['content-type']).toMatch(/^application\/json/);
      expect(body).not.toContain(answer.auth_req_id);
      const row = (
        await t.store.db.query<{ id: string; expires_at: Date }>('SELECT id, expires_at FROM pending_authorizations WHERE realm = $1', [
          'ciba-notify',
        ])
      ).rows[0]!;
      expect(JSON.parse(body)).toEqual({
        realm: 'ciba-notify',
        request_id: row.id,
        client_id: other.clientId,
        client_name: 'Point of sale',
        scope: 'openid profile',
        binding_message: 'Approve W2',
        username: 'gina',
        approve_url: `${issuerOf('ciba-notify')}/bc-approve`,
        expires_at: row.expires_at.toISOString(),
      });

      const withoutMessage = nextNotification();
      expectAnswer(await bcAuthorize({ scope: 'openid', login_hint: 'gina' }, other, `${realmPath('ciba-notify')}/bc-authorize`));
      await withoutMessage;
      expect(JSON.parse(received.at(-1)!.body)).toMatchObject({ binding_message: null, scope: 'openid' });
    });

    it('is not told of a refused request', async () => {
      await t.admin.createRealm('ciba-quiet', { ciba_notification_url: `http://127.0.0.1:${port}/hook` });
      const other = await cibaClient('ciba-quiet', [key]);
      const before = received.length;
      expectError(await bcAuthorize({ scope: 'openid', login_hint: 'nobody' }, other, `${realmPath('ciba-quiet')}/bc-authorize`), 400, 'unknown_user_id');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(received.length).toBe(before);
    });

    it('that hangs delays nothing', async () => {
      await t.admin.createRealm('ciba-hang', { ciba_notification_url: `http://127.0.0.1:${port}/hang` });
      const other = await cibaClient('ciba-hang', [key]);
      await createUser(t.admin, 'ciba-hang', 'hal');
      const started = Date.now();
      expectAnswer(await bcAuthorize({ scope: 'openid', login_hint: 'hal' }, other, `${realmPath('ciba-hang')}/bc-authorize`));
      expect(Date.now() - started).toBeLessThan(1_500);
    });

    it('that refuses connections fails nothing, and is logged without secrets', async () => {
      const closed = await freePort();
      await t.admin.createRealm('ciba-refused', { ciba_notification_url: `http://127.0.0.1:${closed}/hook?key=receiver-secret` });
      const other = await cibaClient('ciba-refused', [key]);
      await createUser(t.admin, 'ciba-refused', 'ida');
      const answer = expectAnswer(await bcAuthorize({ scope: 'openid', login_hint: 'ida' }, other, `${realmPath('ciba-refused')}/bc-authorize`));

      const deadline = Date.now() + 5_000;
      let line: string | undefined;
      while (!(line = t.logs.find((l) => l.includes('CIBA notification failed') && l.includes('ciba-refused'))) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(line).toBeDefined();
      expect(JSON.parse(line!)).toMatchObject({ level: 40, realm: 'ciba-refused', notification_origin: `http://127.0.0.1:${closed}` });
      for (const logged of t.logs) {
        expect(logged).not.toContain(answer.auth_req_id);
        expect(logged).not.toContain('receiver-secret');
        expect(logged).not.toContain(other.secret);
      }
    });
  });
});
