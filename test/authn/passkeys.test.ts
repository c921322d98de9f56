import { type KeyObject, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { consentFrom, freshRealm, issuerOf, redirectPath } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, codeFlowSetup, hiddenInputs, location, pkce, unescape } from '../support/flow.js';
import { postForm, realmPath } from '../support/oauth.js';
import { type Json, b64, cbor, passkeyForm, sha } from '../support/passkeys.js';
import { createUser, verifyIdToken } from '../support/users.js';

/**
 * Passkeys through HTTP, with a software authenticator that builds WebAuthn responses by
 * hand (ES256 keys of node:crypto, "none" attestation), so that every field can be bent:
 * registration on the account page and at sign-in, a passkey as second factor and as a
 * passwordless sign-in, and the refusals of WebAuthn L3 §7.1 and §7.2.
 */

const ORIGIN = 'https://auth.test';

// ---------------------------------------------------------------- a software authenticator

interface SoftCredential {
  id: Buffer;
  privateKey: KeyObject;
  rpId: string;
  userHandle: string;
  counter: number;
}

/** What a test bends in a response: the client data, the RP ID hash, flags, the counter, the user handle. */
interface Tamper {
  origin?: string;
  rpId?: string;
  type?: string;
  userVerified?: boolean;
  counter?: number;
  userHandle?: string | null;
  credential?: SoftCredential;
  /** Sign with a key other than the credential's. */
  otherKey?: boolean;
}

const FLAG = { up: 0x01, uv: 0x04, be: 0x08, bs: 0x10, at: 0x40 };


class SoftwareAuthenticator {
  readonly credentials: SoftCredential[] = [];

  /** `synced`: a backup-eligible, backed-up credential (a synced passkey); else device-bound. */
  constructor(private readonly traits: { synced?: boolean; userVerifying?: boolean } = {}) {}

  private flags(userVerified: boolean | undefined): number {
    const uv = userVerified ?? this.traits.userVerifying ?? true;
    return FLAG.up | (uv ? FLAG.uv : 0) | (this.traits.synced ? FLAG.be | FLAG.bs : 0);
  }

  private clientData(type: string, challenge: string, tamper: Tamper): Buffer {
    return Buffer.from(JSON.stringify({ type: tamper.type ?? type, challenge, origin: tamper.origin ?? ORIGIN, crossOrigin: false }));
  }

  /** navigator.credentials.create(), as @simplewebauthn/browser returns it. */
  register(options: Json, tamper: Tamper = {}): Json {
    const rpId = options.rp.id as string;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const credential: SoftCredential = { id: randomBytes(32), privateKey, rpId, userHandle: options.user.id, counter: 0 };
    const coseKey = cbor(
      new Map<number, unknown>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credential.id.length);
    const authData = Buffer.concat([
      sha(tamper.rpId ?? rpId),
      Buffer.from([this.flags(tamper.userVerified) | FLAG.at]),
      Buffer.alloc(4),
      Buffer.alloc(16), // AAGUID
      idLength,
      credential.id,
      coseKey,
    ]);
    const attestationObject = cbor(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]));
    this.credentials.push(credential);
    return {
      id: b64(credential.id),
      rawId: b64(credential.id),
      type: 'public-key',
      response: {
        clientDataJSON: b64(this.clientData('webauthn.create', options.challenge, tamper)),
        attestationObject: b64(attestationObject),
        transports: ['internal', 'made-up'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** navigator.credentials.get(): one of allowCredentials, or (none listed) a discoverable credential of the RP ID. */
  authenticate(options: Json, tamper: Tamper = {}): Json {
    const allowed = ((options.allowCredentials ?? []) as Array<{ id: string }>).map((descriptor) => descriptor.id);
    const credential =
      tamper.credential ??
      this.credentials.find((candidate) => candidate.rpId === options.rpId && (allowed.length === 0 || allowed.includes(b64(candidate.id))));
    if (!credential) throw new Error('the authenticator holds no fitting credential');
    credential.counter = tamper.counter ?? credential.counter + 1;
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(credential.counter);
    const authData = Buffer.concat([sha(tamper.rpId ?? credential.rpId), Buffer.from([this.flags(tamper.userVerified)]), counter]);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, tamper);
    const key = tamper.otherKey ? generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey : credential.privateKey;
    const signature = sign('sha256', Buffer.concat([authData, sha(clientDataJSON)]), key);
    const userHandle = tamper.userHandle === undefined ? credential.userHandle : tamper.userHandle;
    return {
      id: b64(credential.id),
      rawId: b64(credential.id),
      type: 'public-key',
      response: {
        clientDataJSON: b64(clientDataJSON),
        authenticatorData: b64(authData),
        signature: b64(signature),
        ...(userHandle === null ? {} : { userHandle }),
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}

// ---------------------------------------------------------------- reading the pages

/** The message of the page's error box, if any. */
const errorText = (page: string): string | undefined => /<p class="error" role="alert">([^<]*)<\/p>/.exec(page)?.[1];
const noticeOf = (response: LightMyRequestResponse): string | null => new URL(location(response)).searchParams.get('notice');

// ---------------------------------------------------------------- the tests

describe('passkeys', () => {
  let t: TestApp;
  /** What Node warns of meanwhile: nothing (the algorithms are named, no runtime probe for ML-DSA). */
  const warnings: string[] = [];
  const noteWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);

  beforeAll(async () => {
    process.on('warning', noteWarning);
    t = await startTestApp();
  });

  afterAll(async () => {
    process.off('warning', noteWarning);
    await t?.close();
  });

  const browser = () => new TestBrowser(t.app, t.baseUrl);
  const setAuthentication = async (realm: string, authentication: string[]) => {
    const response = await t.admin.request('PATCH', `/realms/${realm}`, { settings: { authentication } });
    expect(response.statusCode, response.body).toBe(200);
  };

  /** A realm where a person signs in with a password, a client of the code flow, and that person. */
  async function setup(username = 'alice') {
    const realm = await freshRealm(t);
    const flow = await codeFlowSetup(t.admin, realm, { username });
    return { realm, clientId: flow.clientId, person: { username: flow.username, password: flow.password } };
  }

  /** Signs in to the account page with a password (the realm's steps then are `["password"]`). */
  async function accountSession(realm: string, person: { username: string; password: string }): Promise<TestBrowser> {
    const b = browser();
    const start = await b.get(`${realmPath(realm)}/account`);
    const url = location(start);
    const page = await b.get(url);
    const signedIn = await b.submit(url, page, person);
    expect(location(signedIn)).toBe(`${issuerOf(realm)}/account`);
    return b;
  }

  /** Adds a passkey on the account page. */
  async function registerOnAccount(b: TestBrowser, realm: string, authenticator: SoftwareAuthenticator, name = 'Laptop', tamper: Tamper = {}) {
    const page = await b.get(`${realmPath(realm)}/account`);
    expect(page.statusCode).toBe(200);
    const form = passkeyForm(page.body, 'registration');
    const credential = authenticator.register(form.options, tamper);
    return b.post(form.action!, { ...form.hidden, passkey_name: name, credential: JSON.stringify(credential) });
  }

  /** A person with a passkey registered on the account page, in a realm that then asks for `authentication`. */
  async function withPasskey(authentication: string[], traits: ConstructorParameters<typeof SoftwareAuthenticator>[0] = {}) {
    const setupResult = await setup();
    const authenticator = new SoftwareAuthenticator(traits);
    const registered = await registerOnAccount(await accountSession(setupResult.realm, setupResult.person), setupResult.realm, authenticator);
    expect(noticeOf(registered)).toBe('The passkey "Laptop" was added.');
    await setAuthentication(setupResult.realm, authentication);
    return { ...setupResult, authenticator };
  }

  /** /authorize in a fresh browser, to the sign-in page. */
  async function signInPage(realm: string, clientId: string, b = browser()) {
    const { verifier, challenge } = pkce();
    const query = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      scope: 'openid profile',
      state: 'st',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const start = await b.get(`${realmPath(realm)}/authorize?${query}`);
    expect(redirectPath(start)).toBe(`${realmPath(realm)}/login`);
    const url = location(start);
    return { b, url, page: await b.get(url), verifier };
  }

  /** Posts a passkey form of the page with the authenticator's answer. */
  function answer(b: TestBrowser, url: string, page: LightMyRequestResponse, credential: Json | string, ceremony: 'authentication' | 'registration' = 'authentication') {
    const form = passkeyForm(page.body, ceremony);
    return b.post(form.action ?? url, { ...form.hidden, credential: typeof credential === 'string' ? credential : JSON.stringify(credential) });
  }

  /** Consent when shown, the code, and the ID token's claims. */
  async function idTokenAfter(b: TestBrowser, response: LightMyRequestResponse, realm: string, clientId: string, verifier: string) {
    let last = response;
    if (redirectPath(last).endsWith('/consent')) last = await consentFrom(b, last);
    const code = new URL(location(last)).searchParams.get('code');
    expect(code, location(last)).toEqual(expect.any(String));
    const tokens = await postForm(t.app, `${realmPath(realm)}/access_token`, {
      grant_type: 'authorization_code',
      code: code!,
      redirect_uri: REDIRECT_URI,
      client_id: clientId,
      code_verifier: verifier,
    });
    expect(tokens.statusCode, tokens.body).toBe(200);
    const idToken = (tokens.json() as { id_token: string }).id_token;
    await verifyIdToken(t.app, realm, idToken, { issuer: issuerOf(realm), audience: clientId });
    return decodeJwt(idToken);
  }

  it('registers a passkey on the account page: stored with its key, counter, transports and name, listed with its last use', async () => {
    const { realm, person } = await setup();
    const b = await accountSession(realm, person);
    const page = await b.get(`${realmPath(realm)}/account`);
    expect(page.body).toContain('You have no passkeys.');
    const form = passkeyForm(page.body, 'registration');
    // Discoverable, user verification preferred, none attestation, the RP ID of BASE_URL.
    expect(form.options).toMatchObject({
      rp: { id: 'auth.test', name: realm },
      user: { name: person.username },
      attestation: 'none',
      authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'preferred' },
      excludeCredentials: [],
      // EdDSA, ES256, RS256: ML-DSA, experimental in Node 24, is neither offered nor probed for.
      pubKeyCredParams: [-8, -7, -257].map((alg) => ({ alg, type: 'public-key' })),
    });
    expect(String(page.headers['content-security-policy'])).toContain("script-src 'self'");
    expect(page.body).toMatch(new RegExp(`<script src="${issuerOf(realm)}/assets/webauthn\\.js\\?v=[\\w-]+" defer></script>`));
    expect(page.body).toContain('<noscript>');

    const authenticator = new SoftwareAuthenticator();
    const registered = await b.post(form.action!, {
      ...form.hidden,
      passkey_name: '  Work\u0000 laptop ',
      credential: JSON.stringify(authenticator.register(form.options)),
    });
    expect(noticeOf(registered)).toBe('The passkey "Work laptop" was added.');

    const rows = await t.store.db.query<{ name: string; counter: number; transports: string[]; backed_up: boolean; last_used_at: Date | null }>(
      'SELECT name, counter::int AS counter, transports, backed_up, last_used_at FROM passkeys WHERE realm = $1',
      [realm],
    );
    expect(rows.rows).toEqual([{ name: 'Work laptop', counter: 0, transports: ['internal'], backed_up: false, last_used_at: null }]);
    const listed = await b.get(`${realmPath(realm)}/account`);
    expect(listed.body).toContain('<strong>Work laptop</strong>');
    expect(listed.body).toContain('never used');
    // The next registration excludes the passkey the person has.
    expect(passkeyForm(listed.body, 'registration').options.excludeCredentials).toEqual([
      { id: b64(authenticator.credentials[0]!.id), type: 'public-key', transports: ['internal'] },
    ]);
    expect(warnings).toEqual([]);
  });

  it('refuses a registration for another origin, another RP ID, a challenge used twice, or from another browser of the same person', async () => {
    const { realm, person } = await setup();
    const b = await accountSession(realm, person);
    const authenticator = new SoftwareAuthenticator();
    expect(noticeOf(await registerOnAccount(b, realm, authenticator, 'x', { origin: 'https://evil.test' }))).toBe('The passkey could not be registered.');
    expect(noticeOf(await registerOnAccount(b, realm, authenticator, 'x', { rpId: 'evil.test' }))).toBe('The passkey could not be registered.');
    expect(noticeOf(await registerOnAccount(b, realm, authenticator, 'x', { type: 'webauthn.get' }))).toBe('The passkey could not be registered.');

    const page = await b.get(`${realmPath(realm)}/account`);
    const form = passkeyForm(page.body, 'registration');
    const fields = { ...form.hidden, passkey_name: 'Once', credential: JSON.stringify(authenticator.register(form.options)) };
    expect(noticeOf(await b.post(form.action!, fields))).toBe('The passkey "Once" was added.');
    expect(noticeOf(await b.post(form.action!, fields))).toBe('The passkey request expired. Try again.');

    // Another browser of the same person: its own CSRF token, so the first browser's challenge is not its own.
    const other = await accountSession(realm, person);
    const otherPage = await other.get(`${realmPath(realm)}/account`);
    const otherCsrf = passkeyForm(otherPage.body, 'registration').hidden.csrf!;
    const stolen = { ...passkeyForm((await b.get(`${realmPath(realm)}/account`)).body, 'registration') };
    const crossed = await other.post(stolen.action!, {
      csrf: otherCsrf,
      passkey_name: 'Crossed',
      credential: JSON.stringify(new SoftwareAuthenticator().register(stolen.options)),
    });
    expect(noticeOf(crossed)).toBe('The passkey request expired. Try again.');
    const count = await t.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM passkeys WHERE realm = $1', [realm]);
    expect(count.rows[0]!.n).toBe(1);
  });

  it('a passkey as second factor: password, then the passkey among the person\'s own; amr pwd + hwk + mfa, acr 0 (the default journey)', async () => {
    const { realm, clientId, person, authenticator } = await withPasskey(['password', 'passkey']);
    const { b, url, page, verifier } = await signInPage(realm, clientId);
    // The password page offers a passwordless sign-in beside the password.
    expect(passkeyForm(page.body, 'authentication').hidden.step).toBe('passkey');
    const afterPassword = await b.submit(url, page, { ...person, step: 'password' });
    expect(location(afterPassword)).toContain('/login?transaction=');
    const passkeyPage = await b.get(location(afterPassword));
    expect(passkeyPage.body).toContain('Use your passkey');
    expect(passkeyPage.body).toContain('This sign-in asks for a passkey, which needs JavaScript');
    const form = passkeyForm(passkeyPage.body, 'authentication');
    expect(form.options).toMatchObject({ rpId: 'auth.test', userVerification: 'preferred' });
    expect(form.options.allowCredentials).toEqual([{ id: b64(authenticator.credentials[0]!.id), type: 'public-key', transports: ['internal'] }]);

    // Presence only: the passkey is the second factor beside the password.
    const done = await answer(b, url, passkeyPage, authenticator.authenticate(form.options, { userVerified: false }));
    const claims = await idTokenAfter(b, done, realm, clientId, verifier);
    expect(claims.amr).toEqual(['pwd', 'hwk', 'mfa']);
    expect(claims.acr).toBe('0');
    const used = await t.store.db.query<{ counter: number; last_used_at: Date | null }>('SELECT counter::int AS counter, last_used_at FROM passkeys WHERE realm = $1', [realm]);
    expect(used.rows[0]).toMatchObject({ counter: 1, last_used_at: expect.any(Date) });
  });

  it('a passwordless sign-in with a discoverable, user-verified passkey: no username; amr hwk + mfa (swk when synced), acr 0 (the default journey)', async () => {
    for (const synced of [false, true]) {
      const { realm, clientId, authenticator } = await withPasskey(['password', 'passkey'], { synced });
      const { b, url, page, verifier } = await signInPage(realm, clientId);
      const form = passkeyForm(page.body, 'authentication');
      expect(form.options).toMatchObject({ rpId: 'auth.test', userVerification: 'required' });
      expect(form.options.allowCredentials ?? []).toEqual([]);
      expect(page.body).toContain('Sign in with your password instead.');
      const done = await answer(b, url, page, authenticator.authenticate(form.options));
      const claims = await idTokenAfter(b, done, realm, clientId, verifier);
      expect(claims.amr).toEqual([synced ? 'swk' : 'hwk', 'mfa']);
      expect(claims.acr).toBe('0');
    }
  });

  it('a passwordless session stands for the next request of the journey whose password page offered the passkey', async () => {
    const { realm, clientId, authenticator } = await withPasskey(['password', 'passkey']);
    const { b, url, page, verifier } = await signInPage(realm, clientId);
    const done = await answer(b, url, page, authenticator.authenticate(passkeyForm(page.body, 'authentication').options));
    expect((await idTokenAfter(b, done, realm, clientId, verifier)).amr).toEqual(['hwk', 'mfa']);

    const query = new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: REDIRECT_URI, scope: 'openid profile', state: 'st', code_challenge: pkce().challenge, code_challenge_method: 'S256', prompt: 'none' });
    const again = await b.get(`${realmPath(realm)}/authorize?${query}`);
    expect(new URL(location(again)).searchParams.get('code'), location(again)).toEqual(expect.any(String));
  });

  it('a step-up that asks a passwordless session for a password takes only its own person\'s password', async () => {
    const { realm, clientId, authenticator, person } = await withPasskey(['password', 'passkey']);
    const { b, url, page, verifier } = await signInPage(realm, clientId);
    const done = await answer(b, url, page, authenticator.authenticate(passkeyForm(page.body, 'authentication').options));
    await idTokenAfter(b, done, realm, clientId, verifier);
    const journey = { start: 'pw', nodes: { pw: { type: 'password', next: { success: 'done' } } } };
    expect((await t.admin.request('PUT', `/realms/${realm}/journeys/pw`, journey)).statusCode).toBeLessThan(300);
    const pwClient = (await t.admin.createClient(realm, { client_type: 'public', redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code'], scope: 'openid profile', journey: 'pw' })).client_id;
    const mallory = await createUser(t.admin, realm, 'mallory');

    const stepUp = await signInPage(realm, pwClient, b);
    expect(stepUp.page.body).toContain('name="password"');
    const other = await b.submit(stepUp.url, stepUp.page, { username: mallory.username, password: mallory.password, step: 'pw' });
    expect(other.statusCode).toBe(200);
    expect(other.body).toContain('The username or password is incorrect.');
    const own = await b.submit(stepUp.url, stepUp.page, { ...person, step: 'pw' });
    expect((await idTokenAfter(b, own, realm, pwClient, stepUp.verifier)).amr).toEqual(['hwk', 'mfa', 'pwd']);
  });

  it('a realm whose first step is the passkey signs in without a username, and says a passkey needs JavaScript', async () => {
    const { realm, clientId, authenticator } = await withPasskey(['passkey']);
    const { b, url, page, verifier } = await signInPage(realm, clientId);
    expect(page.body).not.toContain('name="password"');
    expect(page.body).toContain('this sign-in cannot go on without it');
    // Posted without JavaScript: nothing to verify, said so, counted nowhere.
    const withoutScript = await b.submit(url, page, {});
    expect(withoutScript.statusCode).toBe(200);
    expect(errorText(withoutScript.body)).toBe('Passkeys need JavaScript, which is turned off or not supported in this browser.');
    const claims = await idTokenAfter(b, await answer(b, url, withoutScript, authenticator.authenticate(passkeyForm(withoutScript.body, 'authentication').options)), realm, clientId, verifier);
    expect(claims.amr).toEqual(['hwk', 'mfa']);
  });

  it('refuses a passwordless sign-in without user verification, or without a user handle', async () => {
    const { realm, clientId, authenticator } = await withPasskey(['password', 'passkey']);
    for (const tamper of [{ userVerified: false }, { userHandle: null }]) {
      const { b, url, page } = await signInPage(realm, clientId);
      const refused = await answer(b, url, page, authenticator.authenticate(passkeyForm(page.body, 'authentication').options, tamper));
      expect(refused.statusCode).toBe(200);
      expect(errorText(refused.body)).toBe('The passkey was not accepted.');
    }
  });

  it('refuses an assertion for another origin or another RP ID, or with a signature of another key', async () => {
    const { realm, clientId, authenticator } = await withPasskey(['password', 'passkey']);
    const tampers: Tamper[] = [{ origin: 'https://auth.test.evil.example' }, { origin: 'http://auth.test' }, { rpId: 'evil.test' }, { type: 'webauthn.create' }, { otherKey: true }];
    for (const tamper of tampers) {
      const { b, url, page } = await signInPage(realm, clientId);
      const refused = await answer(b, url, page, authenticator.authenticate(passkeyForm(page.body, 'authentication').options, tamper));
      expect(errorText(refused.body), JSON.stringify(tamper)).toBe('The passkey was not accepted.');
      expect(refused.headers.location).toBeUndefined();
    }
  });

  it('refuses a signature counter that does not increase, and keeps the stored one', async () => {
    const { realm, clientId, authenticator } = await withPasskey(['password', 'passkey']);
    const first = await signInPage(realm, clientId);
    const passed = await answer(first.b, first.url, first.page, authenticator.authenticate(passkeyForm(first.page.body, 'authentication').options, { counter: 7 }));
    expect(passed.statusCode).toBe(303);
    for (const counter of [6, 7]) {
      const { b, url, page } = await signInPage(realm, clientId);
      const refused = await answer(b, url, page, authenticator.authenticate(passkeyForm(page.body, 'authentication').options, { counter }));
      expect(errorText(refused.body), `counter ${counter}`).toBe('The passkey was not accepted.');
    }
    const stored = await t.store.db.query<{ counter: number }>('SELECT counter::int AS counter FROM passkeys WHERE realm = $1', [realm]);
    expect(stored.rows[0]!.counter).toBe(7);
  });

  it("takes a challenge once: an answer posted twice is refused, as is an answer posted to another transaction", async () => {
    const { realm, clientId, authenticator } = await withPasskey(['password', 'passkey']);
    const { b, url, page } = await signInPage(realm, clientId);
    const form = passkeyForm(page.body, 'authentication');
    const credential = JSON.stringify(authenticator.authenticate(form.options));

    // Another sign-in of the same browser: the challenge of this page is not its transaction's.
    const other = await signInPage(realm, clientId, b);
    const crossed = await b.post(other.url, { ...passkeyForm(other.page.body, 'authentication').hidden, credential });
    expect(errorText(crossed.body)).toBe('The passkey request expired. Try again.');

    expect((await b.post(url, { ...form.hidden, credential })).statusCode).toBe(303);
    const replayed = await b.post(url, { ...form.hidden, credential });
    expect(replayed.statusCode).toBe(200);
    expect(errorText(replayed.body)).toBe('The passkey request expired. Try again.');

    // Two uses at once: one wins.
    const race = await signInPage(realm, clientId);
    const raceForm = passkeyForm(race.page.body, 'authentication');
    const raced = JSON.stringify(authenticator.authenticate(raceForm.options));
    const answers = await Promise.all([race.b.post(race.url, { ...raceForm.hidden, credential: raced }), race.b.post(race.url, { ...raceForm.hidden, credential: raced })]);
    expect(answers.map((response) => response.statusCode).sort()).toEqual([200, 303]);
  });

  it("refuses another person's passkey as second factor, and a user handle that names someone else", async () => {
    const { realm, clientId, person, authenticator } = await withPasskey(['password']);
    // Bob, in the same realm, with a passkey of his own.
    const bob = await createUser(t.admin, realm, 'bob');
    const bobsAuthenticator = new SoftwareAuthenticator();
    expect(noticeOf(await registerOnAccount(await accountSession(realm, bob), realm, bobsAuthenticator, 'Bob\'s'))).toBe('The passkey "Bob\'s" was added.');
    await setAuthentication(realm, ['password', 'passkey']);

    // Alice's second step, answered with Bob's credential.
    const { b, url, page } = await signInPage(realm, clientId);
    const passkeyPage = await b.get(location(await b.submit(url, page, { ...person, step: 'password' })));
    const options = passkeyForm(passkeyPage.body, 'authentication').options;
    const refused = await answer(b, url, passkeyPage, bobsAuthenticator.authenticate(options, { credential: bobsAuthenticator.credentials[0]! }));
    expect(errorText(refused.body)).toBe('The passkey was not accepted.');

    // A passwordless answer with Alice's credential whose user handle names Bob.
    const other = await signInPage(realm, clientId);
    const bobsHandle = bobsAuthenticator.credentials[0]!.userHandle;
    const forged = await answer(other.b, other.url, other.page, authenticator.authenticate(passkeyForm(other.page.body, 'authentication').options, { userHandle: bobsHandle }));
    expect(errorText(forged.body)).toBe('The passkey was not accepted.');
  });

  it('a passkey of one realm is unknown in another', async () => {
    const { authenticator } = await withPasskey(['password', 'passkey']);
    const other = await setup('carol');
    await setAuthentication(other.realm, ['password', 'passkey']);
    const { b, url, page } = await signInPage(other.realm, other.clientId);
    const options = passkeyForm(page.body, 'authentication').options;
    const refused = await answer(b, url, page, authenticator.authenticate(options, { credential: authenticator.credentials[0]! }));
    expect(errorText(refused.body)).toBe('The passkey was not accepted.');
  });

  it('a deleted passkey no longer signs in', async () => {
    const { realm, clientId, person, authenticator } = await withPasskey(['password']);
    const b = await accountSession(realm, person);
    const page = await b.get(`${realmPath(realm)}/account`);
    const deleteForm = [...page.body.matchAll(/<form method="post" action="([^"]*\/account\/passkeys\/delete)">([\s\S]*?)<\/form>/g)][0]!;
    const deleted = await b.post(unescape(deleteForm[1]!), hiddenInputs(deleteForm[2]!));
    expect(noticeOf(deleted)).toBe('The passkey was deleted.');
    expect(noticeOf(await b.post(unescape(deleteForm[1]!), hiddenInputs(deleteForm[2]!)))).toBe('That passkey was not found.');

    await setAuthentication(realm, ['password', 'passkey']);
    const signIn = await signInPage(realm, clientId);
    const refused = await answer(signIn.b, signIn.url, signIn.page, authenticator.authenticate(passkeyForm(signIn.page.body, 'authentication').options));
    expect(errorText(refused.body)).toBe('The passkey was not accepted.');
  });

  it('a person without a passkey registers one at the second step, which passes it; the next sign-in asks for it', async () => {
    const { realm, clientId, person } = await setup();
    await setAuthentication(realm, ['password', 'passkey']);
    const authenticator = new SoftwareAuthenticator({ userVerifying: false });
    const first = await signInPage(realm, clientId);
    const enrolPage = await first.b.get(location(await first.b.submit(first.url, first.page, { ...person, step: 'password' })));
    expect(enrolPage.body).toContain('Register a passkey');
    const form = passkeyForm(enrolPage.body, 'registration');
    const enrolled = await first.b.post(first.url, { ...form.hidden, passkey_name: 'Phone', credential: JSON.stringify(authenticator.register(form.options)) });
    const claims = await idTokenAfter(first.b, enrolled, realm, clientId, first.verifier);
    expect(claims.amr).toEqual(['pwd', 'hwk', 'mfa']);

    const second = await signInPage(realm, clientId);
    const passkeyPage = await second.b.get(location(await second.b.submit(second.url, second.page, { ...person, step: 'password' })));
    expect(passkeyPage.body).toContain('Use your passkey');
    const done = await answer(second.b, second.url, passkeyPage, authenticator.authenticate(passkeyForm(passkeyPage.body, 'authentication').options));
    expect((await idTokenAfter(second.b, done, realm, clientId, second.verifier)).amr).toEqual(['pwd', 'hwk', 'mfa']);
  });

  it('never answers 500 to malformed, huge or misplaced answers', async () => {
    const { realm, clientId, person, authenticator } = await withPasskey(['password', 'passkey']);
    const { b, url, page } = await signInPage(realm, clientId);
    const valid = authenticator.authenticate(passkeyForm(page.body, 'authentication').options);
    const bad: Array<Json | string> = [
      '{',
      'null',
      '[]',
      '"text"',
      JSON.stringify({ ...valid, id: 'not base64url!' }),
      JSON.stringify({ ...valid, response: { ...valid.response, clientDataJSON: b64(Buffer.from('not json')) } }),
      JSON.stringify({ ...valid, response: { ...valid.response, clientDataJSON: b64(Buffer.from('{"challenge":42}')) } }),
      JSON.stringify({ ...valid, response: { ...valid.response, authenticatorData: b64(Buffer.alloc(40)) } }),
      JSON.stringify({ ...valid, response: { ...valid.response, signature: b64(Buffer.from('junk')) } }),
      JSON.stringify({ ...valid, response: { ...valid.response, signature: 'A'.repeat(60_000) } }),
      'x'.repeat(60_000),
    ];
    for (const credential of bad) {
      const response = await answer(b, url, page, credential);
      expect(response.statusCode, String(credential).slice(0, 80)).toBeLessThan(500);
    }
    // Over the body limit: 413, not 500.
    const huge = await b.post(url, { ...passkeyForm(page.body, 'authentication').hidden, credential: 'x'.repeat(70_000) });
    expect(huge.statusCode).toBe(413);

    // A passkey form posted while the current step is another (an alternative's form is accepted at any step by the driver).
    const realmWithOtp = await freshRealm(t, { authentication: ['password', 'otp', 'passkey'] });
    const flow = await codeFlowSetup(t.admin, realmWithOtp, { username: person.username });
    const otpRun = await signInPage(realmWithOtp, flow.clientId);
    const otpPage = await otpRun.b.get(location(await otpRun.b.submit(otpRun.url, otpRun.page, { ...person, step: 'password' })));
    const misplaced = await otpRun.b.post(otpRun.url, { ...hiddenInputs(otpPage.body), step: 'passkey', credential: JSON.stringify(valid) });
    expect(misplaced.statusCode).toBe(200);
    expect(misplaced.headers.location).toBeUndefined();
  });

  it('serves the scripts: the WebAuthn library and the page script, as JavaScript cached for a year', async () => {
    const { realm } = await setup();
    for (const name of ['webauthn.js', 'passkey.js', 'page.js']) {
      const response = await t.app.inject({ method: 'GET', url: `${realmPath(realm)}/assets/${name}?v=whatever` });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
    }
    const library = await t.app.inject({ method: 'GET', url: '/oauth2/assets/webauthn.js' });
    expect(library.body).toContain('SimpleWebAuthnBrowser');
    // The page script is a classic script (no import or export) that parses.
    const pageScript = await t.app.inject({ method: 'GET', url: '/oauth2/assets/passkey.js' });
    expect(pageScript.body).toContain('data-passkey-options');
    expect(() => new Function(pageScript.body)).not.toThrow();
    const shared = await t.app.inject({ method: 'GET', url: '/oauth2/assets/page.js' });
    expect(shared.body).toContain('show-password');
    expect(() => new Function(shared.body)).not.toThrow();
    // A realm that does not ask for a passkey loads no passkey script on its sign-in page: the page script alone (show-password).
    const { clientId } = await codeFlowSetup(t.admin, realm, { username: 'dave' });
    const { page } = await signInPage(realm, clientId);
    expect([...page.body.matchAll(/<script src="[^"]*\/assets\/([a-z]+\.js)\?v=/g)].map(([, name]) => name)).toEqual(['page.js']);
    expect(String(page.headers['content-security-policy'])).toContain("script-src 'self'");
  });
});
