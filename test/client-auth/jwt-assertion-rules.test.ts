import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLOCK_SKEW_SECONDS } from '../../src/assertions/signed-jwt.js';
import { type TestApp, startTestApp } from '../support/app.js';
import { freshRealm, issuerOf } from '../support/flow-helpers.js';
import { type KeyPair, keyPair } from '../support/keys.js';
import { postForm, realmPath } from '../support/oauth.js';
import { createUser } from '../support/users.js';

const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const CIBA = 'urn:openid:params:grant-type:ciba';
/**
 * One name for a client and for a trusted issuer with the client's key, so that one JWT can be
 * presented as a client assertion, a CIBA request object and a JWT bearer assertion: its `iss`
 * and `sub` name the client, and its `sub` is also the email of a person of the realm.
 */
const SIGNER = 'gateway@partner.example';

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** One place a JWT assertion is presented, with what it answers when it accepts or refuses one. */
interface Use {
  name: string;
  /** How long the assertion may be valid there. */
  maxLifetimeSeconds: number;
  typ: string;
  present(jwt: string): Promise<LightMyRequestResponse>;
  refusal: { status: number; error: string };
}

describe('the rules every JWT assertion meets: client assertions, CIBA request objects, JWT bearer assertions', () => {
  let t: TestApp;
  let realm: string;
  let issuer: string;
  let key: KeyPair;
  let uses: Use[];

  /** A JWT that every use accepts, which `claims` change (undefined removes one). */
  function sign(claims: Record<string, unknown> = {}, typ?: string): Promise<string> {
    const now = nowSeconds();
    const all: Record<string, unknown> = {
      iss: SIGNER,
      sub: SIGNER,
      aud: issuer,
      iat: now,
      nbf: now,
      exp: now + 60,
      jti: randomUUID(),
      scope: 'openid',
      login_hint: 'gateway',
      ...claims,
    };
    for (const [name, value] of Object.entries(all)) if (value === undefined) delete all[name];
    return new SignJWT(all).setProtectedHeader({ alg: key.alg, kid: key.kid, ...(typ ? { typ } : {}) }).sign(key.privateKey);
  }

  /** The client's authentication beside a request object or a bearer assertion: an assertion of its own. */
  async function clientAuthentication(): Promise<Record<string, string>> {
    return { client_assertion_type: CLIENT_ASSERTION_TYPE, client_assertion: await sign() };
  }

  beforeAll(async () => {
    t = await startTestApp();
    realm = await freshRealm(t);
    issuer = issuerOf(realm);
    key = await keyPair('ES256');
    await t.admin.createClient(realm, {
      client_id: SIGNER,
      grant_types: [CIBA, JWT_BEARER],
      scope: 'openid',
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [key.publicJwk] },
    });
    const trusted = await t.admin.request('POST', `/realms/${realm}/trusted-issuers`, {
      kind: 'jwt',
      issuer: SIGNER,
      jwks: { keys: [key.publicJwk] },
      subject_mapping: 'email',
    });
    expect(trusted.statusCode, trusted.body).toBe(201);
    await createUser(t.admin, realm, 'gateway', { claims: { email: SIGNER } });

    const path = realmPath(realm);
    uses = [
      {
        name: 'client assertion',
        maxLifetimeSeconds: 300,
        typ: 'client-authentication+jwt',
        present: (jwt) => postForm(t.app, `${path}/introspect`, { token: 'unknown', client_assertion_type: CLIENT_ASSERTION_TYPE, client_assertion: jwt }),
        refusal: { status: 401, error: 'invalid_client' },
      },
      {
        name: 'CIBA request object',
        maxLifetimeSeconds: 3600,
        typ: 'oauth-authz-req+jwt',
        present: async (jwt) => postForm(t.app, `${path}/bc-authorize`, { request: jwt, ...(await clientAuthentication()) }),
        refusal: { status: 400, error: 'invalid_request' },
      },
      {
        name: 'JWT bearer assertion',
        maxLifetimeSeconds: 3600,
        typ: 'jwt',
        present: async (jwt) => postForm(t.app, `${path}/access_token`, { grant_type: JWT_BEARER, assertion: jwt, ...(await clientAuthentication()) }),
        refusal: { status: 400, error: 'invalid_grant' },
      },
    ];
  });
  afterAll(() => t?.close());

  function expectAccepted(use: Use, response: LightMyRequestResponse): void {
    expect(response.statusCode, `${use.name}: ${response.body}`).toBe(200);
  }

  function expectRefused(use: Use, response: LightMyRequestResponse, because: RegExp = /\S/): void {
    expect({ use: use.name, status: response.statusCode, body: response.json() }).toEqual({
      use: use.name,
      status: use.refusal.status,
      body: { error: use.refusal.error, error_description: use.refusal.error === 'invalid_client' ? expect.any(String) : expect.stringMatching(because) },
    });
  }

  it('accepts iat and nbf a little ahead of our clock, within the one clock skew, in every use', async () => {
    const ahead = nowSeconds() + CLOCK_SKEW_SECONDS / 2;
    for (const use of uses) {
      expectAccepted(use, await use.present(await sign({ iat: ahead, exp: ahead + 60 })));
      expectAccepted(use, await use.present(await sign({ nbf: ahead, iat: ahead, exp: ahead + 60 })));
    }
  });

  it('refuses iat or nbf further ahead than the clock skew, in every use', async () => {
    const ahead = nowSeconds() + CLOCK_SKEW_SECONDS + 30;
    for (const use of uses) {
      expectRefused(use, await use.present(await sign({ iat: ahead, exp: ahead + 60 })), /iat/);
      expectRefused(use, await use.present(await sign({ nbf: ahead, exp: ahead + 60 })), /nbf/);
    }
  });

  it('accepts an expired exp within the clock skew, and refuses one beyond it, in every use', async () => {
    const now = nowSeconds();
    for (const use of uses) {
      expectAccepted(use, await use.present(await sign({ iat: now - 60, nbf: now - 60, exp: now - CLOCK_SKEW_SECONDS / 2 })));
      expectRefused(use, await use.present(await sign({ iat: now - 120, nbf: now - 120, exp: now - CLOCK_SKEW_SECONDS - 30 })), /expired/);
    }
  });

  it('spends a jti once for all three uses: the JWT that one use accepted is refused by the others', async () => {
    for (const first of uses) {
      const jwt = await sign();
      expectAccepted(first, await first.present(jwt));
      for (const use of uses) expectRefused(use, await use.present(jwt), /used already/);
    }
  });

  it('does not spend the jti of a JWT another use refused', async () => {
    const [clientAssertion, requestObject] = uses;
    const jti = randomUUID();
    // Valid for longer than a client assertion may be, not than a request object may.
    const jwt = await sign({ jti, exp: nowSeconds() + 600 });
    expectRefused(clientAssertion!, await clientAssertion!.present(jwt));
    expectAccepted(requestObject!, await requestObject!.present(jwt));
  });

  it('caps the lifetime in each use: from nbf or iat to exp, how long ago it began, and how far ahead exp is', async () => {
    for (const use of uses) {
      const cap = use.maxLifetimeSeconds;
      const now = nowSeconds();
      expectAccepted(use, await use.present(await sign({ iat: now, nbf: now, exp: now + cap })));
      expectRefused(use, await use.present(await sign({ iat: now, nbf: now, exp: now + cap + 30 })), /at most/);
      // Valid for the cap, but begun longer ago than the cap (and not yet expired, by the clock skew).
      expectRefused(use, await use.present(await sign({ iat: now - cap - 30, nbf: now - cap - 30, exp: now - 30 })), /in the past/);
    }
    // Without nbf and iat, exp may be the cap ahead, and no more.
    const [clientAssertion, , bearer] = uses;
    for (const use of [clientAssertion!, bearer!]) {
      const cap = use.maxLifetimeSeconds;
      expectAccepted(use, await use.present(await sign({ iat: undefined, nbf: undefined, exp: nowSeconds() + cap })));
      expectRefused(use, await use.present(await sign({ iat: undefined, nbf: undefined, exp: nowSeconds() + cap + CLOCK_SKEW_SECONDS + 30 })), /at most/);
    }
  });

  it('accepts the typ header JWT or its own kind, and refuses a JWT typed as another kind (RFC 8725 §3.11)', async () => {
    const kinds = ['client-authentication+jwt', 'oauth-authz-req+jwt', 'at+jwt', 'dpop+jwt'];
    for (const use of uses) {
      expectAccepted(use, await use.present(await sign({}, 'JWT')));
      expectAccepted(use, await use.present(await sign({}, `application/${use.typ.toUpperCase()}`)));
      for (const typ of kinds.filter((kind) => kind !== use.typ)) {
        expectRefused(use, await use.present(await sign({}, typ)), /typ/);
      }
    }
  });
});
