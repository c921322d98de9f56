import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, type Server, createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type JWK, SignJWT } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientJwks } from '../../src/client-auth/client-jwks.js';
import { OutboundFetcher } from '../../src/http/outbound-fetch.js';
import { NO_RATE_LIMITS, type TestApp, startTestApp } from '../support/app.js';
import { selfSigned } from '../support/certificates.js';
import { completeFlow, freshRealm, redirectPath } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, location, pkce } from '../support/flow.js';
import { type KeyPair, keyPair } from '../support/keys.js';
import { basic, postForm, realmPath } from '../support/oauth.js';
import { type TestUser, createUser } from '../support/users.js';

/** An HTTPS server on loopback serving one key set, which a test may change, and counting its fetches. */
class KeySetServer {
  keys: JWK[] = [];
  fetches = 0;
  agent!: Agent;
  url!: string;
  private server!: Server;
  private dir!: string;

  async start(): Promise<void> {
    this.dir = mkdtempSync(join(tmpdir(), 'jar-jwks-'));
    const pair = selfSigned(this.dir, 'server', '/CN=127.0.0.1', ['subjectAltName=IP:127.0.0.1']);
    this.server = createServer({ key: pair.key, cert: pair.cert }, (_request, response) => {
      this.fetches += 1;
      response.writeHead(200, { 'content-type': 'application/jwk-set+json' }).end(JSON.stringify({ keys: this.keys }));
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `https://127.0.0.1:${(this.server.address() as AddressInfo).port}/jwks`;
    this.agent = new Agent({ ca: pair.cert, keepAlive: false });
  }

  async stop(): Promise<void> {
    this.agent?.destroy();
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * Request objects as clients make them: openid-client's JAR (alone and through PAR) against a
 * listening server, and a client whose keys the server fetches from its jwks_uri.
 */
describe('signed request objects from real clients', () => {
  let t: TestApp;
  let keyServer: KeySetServer;
  let realm: string;
  let issuer: string;
  let person: TestUser;

  beforeAll(async () => {
    keyServer = new KeySetServer();
    await keyServer.start();
    // The key set server listens on loopback, which only OUTBOUND_ALLOW lets the fetcher reach.
    const clientJwks = new ClientJwks({ agent: keyServer.agent, outbound: new OutboundFetcher({ allow: ['127.0.0.1'] }), timeoutMs: 1_000, cooldownMs: 0 });
    t = await startTestApp({ listen: true, clientJwks });
    realm = await freshRealm(t, NO_RATE_LIMITS);
    issuer = `${t.baseUrl}${realmPath(realm)}`;
    person = await createUser(t.admin, realm, 'jar-client-person');
  });
  afterAll(async () => {
    await t?.close();
    await keyServer?.stop();
  });

  describe('openid-client', () => {
    let key: KeyPair;
    let config: oidc.Configuration;

    beforeAll(async () => {
      key = await keyPair('ES256');
      const created = await t.admin.createClient(realm, {
        client_type: 'confidential',
        redirect_uris: [REDIRECT_URI],
        scope: 'openid profile',
        jwks: { keys: [key.publicJwk] },
        require_signed_request_object: true,
      });
      const secret = created.client_secret as string;
      config = await oidc.discovery(new URL(issuer), created.client_id, { client_secret: secret }, oidc.ClientSecretBasic(secret), {
        execute: [oidc.allowInsecureRequests],
      });
    });

    /** The person's side of the flow from the URL the client made, then the client's code grant. */
    const signInAndRedeem = async (authorizationUrl: URL, expected: { state: string; nonce: string; verifier: string }) => {
      const b = new TestBrowser(t.app, t.baseUrl);
      const { final } = await completeFlow(b, await b.get(authorizationUrl.href), person);
      const tokens = await oidc.authorizationCodeGrant(config, new URL(location(final)), {
        pkceCodeVerifier: expected.verifier,
        expectedState: expected.state,
        expectedNonce: expected.nonce,
        idTokenExpected: true,
      });
      return tokens.claims();
    };

    it('completes the code flow with buildAuthorizationUrlWithJAR', async () => {
      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      const url = await oidc.buildAuthorizationUrlWithJAR(
        config,
        {
          redirect_uri: REDIRECT_URI,
          scope: 'openid profile',
          state,
          nonce,
          code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
        },
        { key: key.privateKey, kid: key.kid },
      );
      // Only client_id and the object travel outside it (RFC 9101 §5).
      expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request']);
      const claims = await signInAndRedeem(url, { state, nonce, verifier });
      expect(claims?.nonce).toBe(nonce);
      expect(claims?.iss).toBe(issuer);
    });

    it('completes the code flow with the object pushed (JAR through buildAuthorizationUrlWithPAR)', async () => {
      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      const { searchParams } = await oidc.buildAuthorizationUrlWithJAR(
        config,
        { redirect_uri: REDIRECT_URI, scope: 'openid', state, nonce, code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' },
        { key: key.privateKey, kid: key.kid },
      );
      const url = await oidc.buildAuthorizationUrlWithPAR(config, searchParams);
      expect(url.searchParams.get('request_uri')).toMatch(/^urn:ietf:params:oauth:request_uri:/);
      const claims = await signInAndRedeem(url, { state, nonce, verifier });
      expect(claims?.nonce).toBe(nonce);
    });

    it('is refused by this client without the object (require_signed_request_object)', async () => {
      const plain = oidc.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT_URI,
        scope: 'openid',
        state: 'plain-state',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      });
      const answer = new URL(location(await new TestBrowser(t.app, t.baseUrl).get(plain.href)));
      expect(answer.searchParams.get('error')).toBe('invalid_request');
      expect(answer.searchParams.get('state')).toBe('plain-state');
    });
  });

  describe('a client with jwks_uri', () => {
    let key: KeyPair;
    let clientId: string;
    let secret: string;

    const objectOf = (signer: KeyPair) => {
      const { challenge } = pkce();
      return new SignJWT({
        client_id: clientId,
        response_type: 'code',
        redirect_uri: REDIRECT_URI,
        scope: 'openid',
        state: 'uri-state',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      })
        .setProtectedHeader({ alg: signer.alg, kid: signer.kid, typ: 'oauth-authz-req+jwt' })
        .setIssuer(clientId)
        .setAudience(issuer)
        .setIssuedAt()
        .setExpirationTime('2m')
        .setJti(crypto.randomUUID())
        .sign(signer.privateKey);
    };

    const pushObject = async (jwt: string) =>
      postForm(t.app, `${realmPath(realm)}/par`, { request: jwt }, { authorization: basic(clientId, secret) });

    beforeAll(async () => {
      key = await keyPair('RS256');
      keyServer.keys = [key.publicJwk];
      const created = await t.admin.createClient(realm, {
        client_type: 'confidential',
        redirect_uris: [REDIRECT_URI],
        scope: 'openid',
        jwks_uri: keyServer.url,
      });
      clientId = created.client_id;
      secret = created.client_secret as string;
    });

    it('verifies its objects with the keys its jwks_uri serves, at /authorize and /par', async () => {
      const before = keyServer.fetches;
      const response = await new TestBrowser(t.app, t.baseUrl).get(`${realmPath(realm)}/authorize?${new URLSearchParams({ client_id: clientId, request: await objectOf(key) })}`);
      expect(redirectPath(response)).toBe(`${realmPath(realm)}/login`);
      expect((await pushObject(await objectOf(key))).statusCode).toBe(201);
      expect(keyServer.fetches - before).toBe(1);
    });

    it('fetches the key set again for a key it does not know yet, and refuses a key it never serves', async () => {
      const rotated = await keyPair('ES256');
      keyServer.keys = [key.publicJwk, rotated.publicJwk];
      const pushed = await pushObject(await objectOf(rotated));
      expect(pushed.statusCode, pushed.body).toBe(201);

      const stranger = await keyPair('ES256');
      const refused = await pushObject(await objectOf(stranger));
      expect(refused.statusCode).toBe(400);
      expect(refused.json().error).toBe('invalid_request_object');
    });
  });
});
