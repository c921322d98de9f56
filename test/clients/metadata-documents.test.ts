import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Agent, type Server, createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import type { LightMyRequestResponse } from 'fastify';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ClientJwks } from '../../src/client-auth/client-jwks.js';
import { MetadataDocumentFetcher } from '../../src/clients/metadata-document-fetcher.js';
import { OutboundFetcher } from '../../src/http/outbound-fetch.js';
import { OutboundSlots } from '../../src/http/outbound-slots.js';
import { deleteExpired } from '../../src/store/cleanup.js';
import { NO_RATE_LIMITS, type TestApp, startTestApp } from '../support/app.js';
import { selfSigned } from '../support/certificates.js';
import { authorize, codeRequest, expectCode, expectErrorPage, freshRealm, issuerOf, redirectPath, signInFrom } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, location, pkce } from '../support/flow.js';
import { type KeyPair, keyPair } from '../support/keys.js';
import { basic, postForm, realmPath } from '../support/oauth.js';
import { type TestUser, createUser } from '../support/users.js';

type Route = (request: IncomingMessage, response: ServerResponse) => void;

/** An HTTPS server on loopback, with a certificate of its own, serving the routes a test sets and counting requests. */
class DocumentServer {
  private readonly routes = new Map<string, Route>();
  private readonly requests = new Map<string, number>();
  private server!: Server;
  private dir!: string;
  agent!: Agent;
  origin!: string;
  /** The client_id URL's host as the pages show it. */
  host!: string;

  async start(): Promise<void> {
    this.dir = mkdtempSync(`${tmpdir()}/cimd-`);
    const pair = selfSigned(this.dir, 'server', '/CN=127.0.0.1', ['subjectAltName=IP:127.0.0.1']);
    this.server = createServer({ key: pair.key, cert: pair.cert }, (request, response) => {
      const path = request.url ?? '/';
      this.requests.set(path, (this.requests.get(path) ?? 0) + 1);
      const route = this.routes.get(path);
      if (route) route(request, response);
      else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.host = `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    this.origin = `https://${this.host}`;
    this.agent = new Agent({ ca: pair.cert, keepAlive: false });
  }

  /** A new path of this server, its URL, and the route that answers it. */
  serve(route: (url: string) => Route): string {
    const path = `/clients/${randomUUID()}.json`;
    const url = `${this.origin}${path}`;
    this.routes.set(path, route(url));
    return url;
  }

  /** A JSON document at a new URL: `document(url)` is its content. */
  serveDocument(document: (url: string) => unknown, headers: Record<string, string> = {}): string {
    return this.serve((url) => (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(document(url)));
    });
  }

  count(url: string): number {
    return this.requests.get(new URL(url).pathname) ?? 0;
  }

  async stop(): Promise<void> {
    this.agent?.destroy();
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }
}

/** What an MCP client publishes: a public client of the code flow, with a name and a logo. */
const publicDocument = (extra: Record<string, unknown> = {}) => (url: string) => ({
  client_id: url,
  client_name: 'Notes Assistant',
  client_uri: 'https://notes.example',
  logo_uri: 'https://notes.example/logo.png',
  redirect_uris: [REDIRECT_URI],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
  ...extra,
});

const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

describe('client ID metadata documents', () => {
  const outbound = new OutboundFetcher({ allow: ['127.0.0.1'] });
  let server: DocumentServer;
  let t: TestApp;
  let fetcher: MetadataDocumentFetcher;
  /** The fetcher's clock runs ahead of the real one by this much. */
  let clockOffset = 0;
  let realm: string;
  let person: TestUser;

  const tokenPath = (name = realm) => `${realmPath(name)}/access_token`;

  const signedIn = async (response: LightMyRequestResponse, b: TestBrowser) => signInFrom(b, response, person);

  /** /authorize through sign-in to the consent page, whose HTML it answers with what follows. */
  const toConsent = async (clientId: string, params: Record<string, string> = {}) => {
    const b = new TestBrowser(t.app, t.baseUrl);
    const { verifier, challenge } = pkce();
    const afterSignIn = await signedIn(await authorize(b, realm, codeRequest(clientId, { code_challenge: challenge, ...params })), b);
    expect(redirectPath(afterSignIn)).toBe(`${realmPath(realm)}/consent`);
    const url = location(afterSignIn);
    const page = await b.get(url);
    expect(page.statusCode).toBe(200);
    return { b, url, page, verifier };
  };

  /** The code flow with PKCE to the code, consent allowed. */
  const codeOf = async (clientId: string, params: Record<string, string> = {}) => {
    const { b, url, page, verifier } = await toConsent(clientId, params);
    const code = expectCode(await b.submit(url, page, { decision: 'allow' }), { iss: issuerOf(realm) });
    return { b, code, verifier, page };
  };

  const exchange = (clientId: string, code: string, verifier: string, extra: Record<string, string> = {}, headers: Record<string, string> = {}) =>
    postForm(t.app, tokenPath(), { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT_URI, client_id: clientId, ...extra }, headers);

  const clientAssertion = (key: KeyPair, clientId: string) =>
    new SignJWT({ iss: clientId, sub: clientId, aud: `${issuerOf(realm)}/access_token`, jti: randomUUID() })
      .setProtectedHeader({ alg: key.alg, kid: key.kid })
      .setIssuedAt()
      .setExpirationTime('60s')
      .sign(key.privateKey);

  /** The 400 page of an untrusted client, naming the problem; never a redirect. */
  const expectRefusedPage = (response: LightMyRequestResponse, problem: RegExp) => {
    expectErrorPage(response);
    expect(response.body).toMatch(problem);
  };

  /** RFC 6749 §5.2 invalid_client, naming the problem. */
  const expectInvalidClient = (response: LightMyRequestResponse, problem?: RegExp) => {
    expect(response.statusCode, response.body).toBe(401);
    const body = response.json() as { error: string; error_description: string };
    expect(body.error).toBe('invalid_client');
    if (problem) expect(body.error_description).toMatch(problem);
  };

  beforeAll(async () => {
    server = new DocumentServer();
    await server.start();
    fetcher = new MetadataDocumentFetcher({ outbound, agent: server.agent, timeoutMs: 500, now: () => Date.now() + clockOffset });
    t = await startTestApp({ metadataDocuments: fetcher, clientJwks: new ClientJwks({ outbound, agent: server.agent }) });
  });
  afterAll(async () => {
    await t?.close();
    await server?.stop();
  });
  beforeEach(async () => {
    realm = await freshRealm(t, { client_id_metadata_documents: true, ...NO_RATE_LIMITS });
    person = await createUser(t.admin, realm, 'alice');
  });

  describe('a public client', () => {
    it('runs the code flow with PKCE: the consent page names its host and shows no logo; tokens, refresh and remembered consent follow', async () => {
      const clientId = server.serveDocument(publicDocument());
      const { b, url, page } = await toConsent(clientId);
      expect(page.body).toContain(`Notes Assistant (${server.host})`);
      expect(page.body).toContain(`it describes itself at <strong>${server.host}</strong>`);
      expect(page.body).not.toContain('notes.example/logo.png');
      expect(page.body).not.toContain('<img');
      const first = expectCode(await b.submit(url, page, { decision: 'allow' }), { iss: issuerOf(realm) });
      // PKCE: without the verifier, the exchange is refused.
      expect((await exchange(clientId, first, 'x'.repeat(43))).json()).toMatchObject({ error: 'invalid_grant' });

      // Consent is remembered for (person, client_id URL): a new sign-in gets a code without the consent page.
      const again = new TestBrowser(t.app, t.baseUrl);
      const { verifier, challenge } = pkce();
      const code = expectCode(await signedIn(await authorize(again, realm, codeRequest(clientId, { code_challenge: challenge })), again), { iss: issuerOf(realm) });
      const consents = await t.store.db.query<{ client_id: string }>('SELECT client_id FROM consents WHERE realm = $1', [realm]);
      expect(consents.rows).toEqual([{ client_id: clientId }]);

      const tokens = await exchange(clientId, code, verifier);
      expect(tokens.statusCode, tokens.body).toBe(200);
      const body = tokens.json() as { access_token: string; refresh_token: string; scope: string; id_token: string };
      expect(body.scope).toBe('openid profile');
      expect(body.id_token).toEqual(expect.any(String));
      const refreshed = await postForm(t.app, tokenPath(), { grant_type: 'refresh_token', refresh_token: body.refresh_token, client_id: clientId });
      expect(refreshed.statusCode, refreshed.body).toBe(200);
      const userinfo = await t.app.inject({
        method: 'GET',
        url: `${realmPath(realm)}/userinfo`,
        headers: { authorization: `Bearer ${(refreshed.json() as { access_token: string }).access_token}` },
      });
      expect(userinfo.statusCode, userinfo.body).toBe(200);
      expect(userinfo.json()).toMatchObject({ sub: person.sub });

      // Not a registered client: the admin API neither lists nor shows it.
      const listed = await t.admin.request('GET', `/realms/${realm}/clients`);
      expect((listed.json() as Array<{ client_id: string }>).map((client) => client.client_id)).not.toContain(clientId);
      expect((await t.admin.request('GET', `/realms/${realm}/clients/${encodeURIComponent(clientId)}`)).statusCode).toBe(404);
    });

    it('asks for no more than the realm\'s registration_scopes when its document names no scope', async () => {
      const clientId = server.serveDocument(publicDocument());
      await t.admin.request('PATCH', `/realms/${realm}`, { settings: { registration_scopes: ['openid'] } });
      const b = new TestBrowser(t.app, t.baseUrl);
      const response = await authorize(b, realm, codeRequest(clientId, { scope: 'openid profile' }));
      expect(response.statusCode).toBe(303);
      expect(new URL(location(response)).searchParams.get('error')).toBe('invalid_scope');
      expect(redirectPath(await authorize(b, realm, codeRequest(clientId, { scope: 'openid' })))).toBe(`${realmPath(realm)}/login`);
    });

    it('pushes its request to /par, and signs out to a post_logout_redirect_uri of its document', async () => {
      const clientId = server.serveDocument(publicDocument({ post_logout_redirect_uris: ['https://app.example/bye'] }));
      const { verifier, challenge } = pkce();
      const pushed = await postForm(t.app, `${realmPath(realm)}/par`, { ...(codeRequest(clientId, { code_challenge: challenge }) as Record<string, string>) });
      expect(pushed.statusCode, pushed.body).toBe(201);
      const b = new TestBrowser(t.app, t.baseUrl);
      const afterSignIn = await signedIn(await authorize(b, realm, { client_id: clientId, request_uri: (pushed.json() as { request_uri: string }).request_uri }), b);
      const consentUrl = location(afterSignIn);
      const code = expectCode(await b.submit(consentUrl, await b.get(consentUrl), { decision: 'allow' }), { iss: issuerOf(realm) });
      const tokens = await exchange(clientId, code, verifier);
      expect(tokens.statusCode, tokens.body).toBe(200);

      const query = new URLSearchParams({ id_token_hint: (tokens.json() as { id_token: string }).id_token, post_logout_redirect_uri: 'https://app.example/bye', state: 'bye' });
      expect(location(await b.get(`${realmPath(realm)}/connect/endSession?${query}`))).toBe('https://app.example/bye?state=bye');
      query.set('post_logout_redirect_uri', 'https://evil.example/bye');
      expectRefusedPage(await b.get(`${realmPath(realm)}/connect/endSession?${query}`), /post_logout_redirect_uri is not registered/);
    });

    it('refuses a redirect URI the document does not list with the 400 page', async () => {
      const clientId = server.serveDocument(publicDocument());
      const b = new TestBrowser(t.app, t.baseUrl);
      expectRefusedPage(await authorize(b, realm, codeRequest(clientId, { redirect_uri: 'https://evil.example/callback' })), /redirect_uri is not registered/);
    });

    it('refuses client authentication with a secret (client_secret_basic) with invalid_client', async () => {
      const clientId = server.serveDocument(publicDocument());
      const { code, verifier } = await codeOf(clientId);
      const response = await exchange(clientId, code, verifier, {}, { authorization: basic(clientId, 'a-secret-it-never-had') });
      expectInvalidClient(response);
      expect(response.headers['www-authenticate']).toBe(`Basic realm="${realm}"`);
    });
  });

  describe('a private_key_jwt client', () => {
    it('runs the code flow, authenticating with the keys of its jwks_uri; without an assertion it is invalid_client', async () => {
      const key = await keyPair('ES256');
      const jwksUri = server.serve(() => (_request, response) => {
        response.writeHead(200, { 'content-type': 'application/jwk-set+json' }).end(JSON.stringify({ keys: [key.publicJwk] }));
      });
      const clientId = server.serveDocument(publicDocument({ token_endpoint_auth_method: 'private_key_jwt', jwks_uri: jwksUri, scope: 'openid' }));
      const { code, verifier, page } = await codeOf(clientId, { scope: 'openid' });
      expect(page.body).toContain(server.host);

      expectInvalidClient(await exchange(clientId, code, verifier));
      const tokens = await exchange(clientId, code, verifier, { client_assertion_type: ASSERTION_TYPE, client_assertion: await clientAssertion(key, clientId) });
      expect(tokens.statusCode, tokens.body).toBe(200);
      expect(tokens.json()).toMatchObject({ scope: 'openid', token_type: 'Bearer' });
    });
  });

  describe('refusals: the 400 page at /authorize, invalid_client at the token endpoint', () => {
    /** Refused at both endpoints, the reason named. */
    const expectRefused = async (clientId: string, problem: RegExp) => {
      const b = new TestBrowser(t.app, t.baseUrl);
      expectRefusedPage(await authorize(b, realm, codeRequest(clientId)), problem);
      expectInvalidClient(await exchange(clientId, 'some-code', 'x'.repeat(43)), problem);
    };

    it('a document whose client_id is another URL', async () => {
      await expectRefused(server.serveDocument(publicDocument({ client_id: `${server.origin}/clients/other.json` })), /client_id equal to the URL/);
    });

    it('a document without client_id', async () => {
      await expectRefused(server.serveDocument((url) => ({ ...publicDocument()(url), client_id: undefined })), /client_id equal to the URL/);
    });

    it('a document larger than 5 KiB', async () => {
      await expectRefused(server.serveDocument(publicDocument({ client_name: 'x'.repeat(150), policy_uri: `https://notes.example/${'p'.repeat(6 * 1024)}` })), /larger than 5120 bytes/);
    });

    it('a document that comes too slowly', async () => {
      const clientId = server.serve((url) => (_request, response) => {
        setTimeout(() => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(publicDocument()(url))), 1_500).unref();
      });
      await expectRefused(clientId, /no complete answer within 0.5 s/);
    });

    it('a redirect, which is not followed', async () => {
      const target = server.serveDocument(publicDocument());
      const clientId = server.serve(() => (_request, response) => response.writeHead(302, { location: target }).end());
      await expectRefused(clientId, /redirect, which is not followed/);
      expect(server.count(target)).toBe(0);
    });

    it('an answer other than 200', async () => {
      await expectRefused(`${server.origin}/clients/missing.json`, /answered HTTP 404/);
    });

    it('a document that is not JSON', async () => {
      const html = server.serve(() => (_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>'));
      await expectRefused(html, /not served as JSON/);
      const broken = server.serve(() => (_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"client_id": '));
      await expectRefused(broken, /is not JSON/);
      const array = server.serve(() => (_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('[]'));
      await expectRefused(array, /not a JSON object/);
    });

    it('a document asking for client_secret_basic, or holding a client secret', async () => {
      await expectRefused(server.serveDocument(publicDocument({ token_endpoint_auth_method: 'client_secret_basic' })), /client_secret_basic, which needs a secret shared/);
      await expectRefused(server.serveDocument(publicDocument({ client_secret: 'chosen-by-the-client' })), /must not hold client_secret/);
      await expectRefused(server.serveDocument(publicDocument({ token_endpoint_auth_method: 'tls_client_auth' })), /uses none or private_key_jwt/);
    });

    it('private_key_jwt without jwks_uri, or keys by value', async () => {
      await expectRefused(server.serveDocument(publicDocument({ token_endpoint_auth_method: 'private_key_jwt' })), /without a jwks_uri/);
      const key = await keyPair('ES256');
      await expectRefused(server.serveDocument(publicDocument({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [key.publicJwk] } })), /by jwks_uri, not jwks/);
    });

    it('what a client registering itself without an initial access token may not have', async () => {
      await expectRefused(server.serveDocument(publicDocument({ grant_types: ['authorization_code', 'client_credentials'] })), /other than authorization_code and refresh_token/);
      await expectRefused(server.serveDocument(publicDocument({ grant_types: ['refresh_token'] })), /must list the authorization_code grant/);
      await expectRefused(server.serveDocument(publicDocument({ scope: 'openid admin' })), /scope: not allowed.*admin/);
      await expectRefused(server.serveDocument(publicDocument({ skip_consent: true })), /skip_consent: only an administrator/);
      await expectRefused(server.serveDocument(publicDocument({ redirect_uris: [] })), /redirect_uris/);
      await expectRefused(server.serveDocument(publicDocument({ redirect_uris: ['http://evil.example/cb'] })), /redirect_uris/);
    });

    it('a client_id URL that breaks the draft\'s rules, never fetched', async () => {
      const good = server.serveDocument(publicDocument());
      const path = new URL(good).pathname;
      for (const [clientId, problem] of [
        [`${good}#fragment`, /must not have a fragment/],
        [`https://user:pw@${server.host}${path}`, /username or password/],
        [`${server.origin}/clients/../${path.slice('/clients/'.length)}`, /\. or \.\. path segments/],
        [`${server.origin}/clients/./x.json`, /\. or \.\. path segments/],
        [`${server.origin}/clients/%2e%2e/x.json`, /\. or \.\. path segments/],
        [`https://127.0.0.1:443${path}`, /normal form/],
        [`HTTPS://${server.host}${path}`, /normal form/],
        [`${good}${'a'.repeat(300)}`, /at most 256 characters/],
      ] as const) {
        await expectRefused(clientId, problem);
      }
      expect(server.count(good)).toBe(0);
    });

    it('odd client_id URLs: the 400 page and invalid_client, never a 500', async () => {
      for (const clientId of [
        'https://',
        'https:///x',
        'https://%zz/x',
        'https://a b/x',
        'https://\u0000/x',
        'https://127.0.0.1:99999/x',
        'https://[::1]/x',
        'https://[::ffff:10.0.0.1]/x',
        'https://10.0.0.1/x',
        'https://169.254.169.254/latest/meta-data/',
        `https://127.0.0.1:1/${'%'.repeat(200)}`,
        'https://127.0.0.1:1/x?\u202e',
      ]) {
        const b = new TestBrowser(t.app, t.baseUrl);
        expectErrorPage(await authorize(b, realm, codeRequest(clientId)));
        expectInvalidClient(await exchange(clientId, 'some-code', 'x'.repeat(43)));
      }
    });

    it('a document on a loopback address, unless OUTBOUND_ALLOW lists it', async () => {
      const clientId = server.serveDocument(publicDocument());
      const guarded = await startTestApp({ metadataDocuments: new MetadataDocumentFetcher({ outbound: new OutboundFetcher(), agent: server.agent }) });
      try {
        const name = await freshRealm(guarded, { client_id_metadata_documents: true });
        const b = new TestBrowser(guarded.app, guarded.baseUrl);
        expectRefusedPage(await authorize(b, name, codeRequest(clientId)), /loopback, private or otherwise internal address/);
        expect(server.count(clientId)).toBe(0);
      } finally {
        await guarded.close();
      }
      // This test's application has OUTBOUND_ALLOW=127.0.0.1.
      const b = new TestBrowser(t.app, t.baseUrl);
      expect(redirectPath(await authorize(b, realm, codeRequest(clientId)))).toBe(`${realmPath(realm)}/login`);
      expect(server.count(clientId)).toBe(1);
    });

    it('with the realm\'s setting off, a client_id URL is an unknown client, never fetched', async () => {
      const clientId = server.serveDocument(publicDocument());
      const off = await freshRealm(t);
      const b = new TestBrowser(t.app, t.baseUrl);
      expectRefusedPage(await authorize(b, off, codeRequest(clientId)), /the client is unknown/);
      expectInvalidClient(await postForm(t.app, tokenPath(off), { grant_type: 'authorization_code', code: 'c', code_verifier: 'x'.repeat(43), client_id: clientId }));
      expect(server.count(clientId)).toBe(0);
    });
  });

  /**
   * Issue 34 item 7 (CONTRACT.md §7): a client_id URL is fetched only after its request was
   * counted under the rate limit, so that changing URLs cannot make the server open a
   * connection per request; and an instance has only so many fetches in flight.
   */
  describe('fetches are counted before they are made, and bounded per instance', () => {
    const TRIES = 30;

    it('/authorize with a new client_id URL each time fetches no more documents than rate_limit_authorize allows', async () => {
      const limited = await freshRealm(t, { client_id_metadata_documents: true, ...NO_RATE_LIMITS, rate_limit_authorize: 10 });
      const urls = Array.from({ length: TRIES }, () => server.serveDocument(publicDocument()));
      const statuses: number[] = [];
      for (const clientId of urls) statuses.push((await authorize(new TestBrowser(t.app, t.baseUrl), limited, codeRequest(clientId))).statusCode);
      // Each of the first ten is counted once (its fetch, not again for its transaction) and signs in.
      expect(statuses.slice(0, 10)).toEqual(Array(10).fill(303));
      expect(statuses.slice(10)).toEqual(Array(TRIES - 10).fill(429));
      expect(urls.map((url) => server.count(url))).toEqual([...Array(10).fill(1), ...Array(TRIES - 10).fill(0)]);
    });

    it('/par with a new client_id URL each time fetches no more documents than rate_limit_par allows from one address', async () => {
      const limited = await freshRealm(t, { client_id_metadata_documents: true, ...NO_RATE_LIMITS, rate_limit_par: 10 });
      const urls = Array.from({ length: TRIES }, () => server.serveDocument(publicDocument()));
      const statuses: number[] = [];
      for (const clientId of urls) {
        const pushed = await postForm(t.app, `${realmPath(limited)}/par`, { ...(codeRequest(clientId, { code_challenge: pkce().challenge }) as Record<string, string>) });
        statuses.push(pushed.statusCode);
        if (pushed.statusCode === 429) expect(pushed.json()).toMatchObject({ error: 'temporarily_unavailable' });
      }
      expect(statuses).toEqual([...Array(10).fill(201), ...Array(TRIES - 10).fill(429)]);
      expect(urls.reduce((sum, url) => sum + server.count(url), 0)).toBe(10);
    });

    it('a jwks_uri fetch refused by the rate limit answers 429 and leaves the key set to be fetched for the next request', async () => {
      realm = await freshRealm(t, { client_id_metadata_documents: true, ...NO_RATE_LIMITS, rate_limit_token: 1 });
      const key = await keyPair('ES256');
      const jwksUri = server.serve(() => (_request, response) => {
        response.writeHead(200, { 'content-type': 'application/jwk-set+json' }).end(JSON.stringify({ keys: [key.publicJwk] }));
      });
      const clientId = server.serveDocument(publicDocument({ token_endpoint_auth_method: 'private_key_jwt', jwks_uri: jwksUri }));
      const tokenRequest = async (from: string, client: string, assertion = true) =>
        t.app.inject({
          method: 'POST',
          url: tokenPath(),
          remoteAddress: from,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({
            grant_type: 'authorization_code', code: 'no-such-code', code_verifier: 'x'.repeat(43), redirect_uri: REDIRECT_URI, client_id: client,
            ...(assertion ? { client_assertion_type: ASSERTION_TYPE, client_assertion: await clientAssertion(key, client) } : {}),
          }).toString(),
        });
      // Its document is fetched (and kept) by a browser's /authorize, which fetches no keys.
      expect((await authorize(new TestBrowser(t.app, t.baseUrl), realm, codeRequest(clientId))).statusCode).toBe(303);
      // 192.0.2.1 spends its one fetch of the minute at the token endpoint on a public client's document.
      expect((await tokenRequest('192.0.2.1', server.serveDocument(publicDocument()), false)).json()).toMatchObject({ error: 'invalid_grant' });
      const refused = await tokenRequest('192.0.2.1', clientId);
      expect(refused.statusCode, refused.body).toBe(429);
      expect(server.count(jwksUri)).toBe(0);
      // Another address fetches the keys at once: the refusal was not the URL's failure.
      const authenticated = await tokenRequest('198.51.100.7', clientId);
      expect(authenticated.json()).toMatchObject({ error: 'invalid_grant' });
      expect(server.count(jwksUri)).toBe(1);
    });

    it('an instance has at most its bound of fetches in flight: one more waits for a slot, and past the waiting room a request is refused with 503, fetching nothing', async () => {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let firstArrived!: () => void;
      const firstInFlight = new Promise<void>((resolve) => (firstArrived = resolve));
      const held = () =>
        server.serve((url) => (_request, response) => {
          firstArrived();
          void released.then(() => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(publicDocument()(url))));
        });
      const slots = new OutboundSlots({ max: 1, waiting: 1, waitMs: 20_000 });
      const bounded = await startTestApp({
        metadataDocuments: new MetadataDocumentFetcher({ outbound: new OutboundFetcher({ allow: ['127.0.0.1'], slots }), agent: server.agent, timeoutMs: 20_000 }),
      });
      const begin = (clientId: string) => authorize(new TestBrowser(bounded.app, bounded.baseUrl), name, codeRequest(clientId));
      let name = '';
      try {
        name = await freshRealm(bounded, { client_id_metadata_documents: true, ...NO_RATE_LIMITS });
        const urls = [held(), held(), held()];
        const first = begin(urls[0]!);
        await firstInFlight;
        // The second and the third: one waits for the slot, the other finds the waiting room full.
        const others = [begin(urls[1]!), begin(urls[2]!)];
        const refused = await Promise.race(others);
        expect(refused.statusCode, refused.body).toBe(503);
        expect(refused.headers['retry-after']).toBe('1');
        expect(urls.map((url) => server.count(url))).toEqual([1, 0, 0]);
        release();
        const answers = await Promise.all([first, ...others]);
        expect(answers.map((answer) => answer.statusCode).sort()).toEqual([303, 303, 503]);
        // The one that waited was fetched once the first gave its slot back; the refused one never was.
        expect(urls.map((url) => server.count(url)).sort()).toEqual([0, 1, 1]);
      } finally {
        release();
        await bounded.close();
      }
    });
  });

  describe('anchors', () => {
    const anchorOf = async (clientId: string) =>
      (
        await t.store.db.query<{ internal_id: string; metadata_document: boolean; record: unknown }>(
          'SELECT internal_id::text AS internal_id, metadata_document, record FROM clients WHERE realm = $1 AND client_id = $2',
          [realm, clientId],
        )
      ).rows[0];
    const age = (clientId: string) =>
      t.store.db.query(`UPDATE clients SET updated_at = now() - interval '4 days' WHERE realm = $1 AND client_id = $2`, [realm, clientId]);

    it('keeps one row per client_id URL and realm, holding no record; the cleanup deletes those nothing needs', async () => {
      const visited = server.serveDocument(publicDocument());
      const allowed = server.serveDocument(publicDocument());
      const recent = server.serveDocument(publicDocument());
      const b = new TestBrowser(t.app, t.baseUrl);
      expect(redirectPath(await authorize(b, realm, codeRequest(visited)))).toBe(`${realmPath(realm)}/login`);
      expect(redirectPath(await authorize(b, realm, codeRequest(recent)))).toBe(`${realmPath(realm)}/login`);
      await codeOf(allowed);
      const first = await anchorOf(visited);
      expect(first).toEqual({ internal_id: expect.any(String), metadata_document: true, record: {} });

      await age(visited);
      await age(allowed);
      await deleteExpired(t.store.db, { batchSize: 500, pauseMs: 0 });
      // Not fetched for three days and nothing of it kept: gone, with its transaction.
      expect(await anchorOf(visited)).toBeUndefined();
      // A consent needs its client; a recent one may be in use.
      expect(await anchorOf(allowed)).toBeDefined();
      expect(await anchorOf(recent)).toBeDefined();

      // Once no instance can still hold its document (a day at most), its next use anchors it anew.
      clockOffset += 25 * 3600_000;
      expect(redirectPath(await authorize(b, realm, codeRequest(visited)))).toBe(`${realmPath(realm)}/login`);
      expect((await anchorOf(visited))?.internal_id).not.toBe(first?.internal_id);
    });
  });

  describe('discovery', () => {
    it('advertises client_id_metadata_document_supported in a realm that takes them, and not in others', async () => {
      const on = await t.app.inject({ method: 'GET', url: `${realmPath(realm)}/.well-known/openid-configuration` });
      expect(on.json()).toMatchObject({ client_id_metadata_document_supported: true });
      const rfc8414 = await t.app.inject({ method: 'GET', url: `/.well-known/oauth-authorization-server/oauth2/${realm}` });
      expect(rfc8414.json()).toMatchObject({ client_id_metadata_document_supported: true });
      const off = await t.app.inject({ method: 'GET', url: `${realmPath(await freshRealm(t))}/.well-known/openid-configuration` });
      expect(off.json()).not.toHaveProperty('client_id_metadata_document_supported');
    });
  });

  describe('caching', () => {
    const startAt = async (clientId: string) => {
      const b = new TestBrowser(t.app, t.baseUrl);
      expect(redirectPath(await authorize(b, realm, codeRequest(clientId)))).toBe(`${realmPath(realm)}/login`);
    };

    it('uses a document for its max-age, then fetches it again', async () => {
      const clientId = server.serveDocument(publicDocument(), { 'cache-control': 'public, max-age=600' });
      await startAt(clientId);
      await startAt(clientId);
      expect(server.count(clientId)).toBe(1);
      clockOffset += 599_000;
      await startAt(clientId);
      expect(server.count(clientId)).toBe(1);
      clockOffset += 2_000;
      await startAt(clientId);
      expect(server.count(clientId)).toBe(2);
    });

    it('follows Expires, within the bounds of one minute and one day', async () => {
      // Against the server's Date header, which the server's own clock writes.
      const expiring = server.serveDocument(publicDocument(), { expires: new Date(Date.now() + 120_000).toUTCString() });
      await startAt(expiring);
      clockOffset += 100_000;
      await startAt(expiring);
      expect(server.count(expiring)).toBe(1);
      clockOffset += 25_000;
      await startAt(expiring);
      expect(server.count(expiring)).toBe(2);

      // no-store still keeps it a minute: a client cannot make every request of its own a fetch.
      const uncached = server.serveDocument(publicDocument(), { 'cache-control': 'no-store' });
      await startAt(uncached);
      await startAt(uncached);
      expect(server.count(uncached)).toBe(1);
      clockOffset += 61_000;
      await startAt(uncached);
      expect(server.count(uncached)).toBe(2);

      // A year's max-age is a day.
      const forever = server.serveDocument(publicDocument(), { 'cache-control': 'max-age=31536000' });
      await startAt(forever);
      clockOffset += 24 * 3600_000 + 1_000;
      await startAt(forever);
      expect(server.count(forever)).toBe(2);
    });

    it('keeps neither a failure nor an invalid document, but answers with it for ten seconds before fetching again', async () => {
      let answer = 503;
      const clientId = server.serve((url) => (_request, response) => {
        if (answer !== 200) response.writeHead(answer).end();
        else response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=600' }).end(JSON.stringify(publicDocument()(url)));
      });
      const b = new TestBrowser(t.app, t.baseUrl);
      expectErrorPage(await authorize(b, realm, codeRequest(clientId)));
      answer = 200;
      // Requests naming a failing URL do not each make this server fetch it.
      for (let i = 0; i < 5; i++) expectErrorPage(await authorize(b, realm, codeRequest(clientId)));
      expect(server.count(clientId)).toBe(1);
      clockOffset += 10_001;
      await startAt(clientId);
      expect(server.count(clientId)).toBe(2);

      const invalid = server.serveDocument(publicDocument({ token_endpoint_auth_method: 'client_secret_post' }), { 'cache-control': 'max-age=600' });
      expectErrorPage(await authorize(b, realm, codeRequest(invalid)));
      expectErrorPage(await authorize(b, realm, codeRequest(invalid)));
      expect(server.count(invalid)).toBe(1);
      clockOffset += 10_001;
      expectErrorPage(await authorize(b, realm, codeRequest(invalid)));
      expect(server.count(invalid)).toBe(2);
    });
  });
});
