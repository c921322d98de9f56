import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_BODY_LIMIT } from '../../src/admin/body-limit.js';
import { OAUTH_BODY_LIMIT } from '../../src/realms/issuer-paths.js';
import { REGISTRATION_BODY_LIMIT } from '../../src/endpoints/client-registration.js';
import { FORM_LIMITS } from '../../src/http/form-params.js';
import { MAX_JSON_DEPTH } from '../../src/json-depth.js';
import {
  ADMIN_TOKEN,
  BUDGET,
  type AnswerKind,
  type HostileFixture,
  type RawResponse,
  expectAnswer,
  expectHealthy,
  expectJsonError,
  hostileProperty,
  rawExchange,
  send,
  startHostileApp,
} from '../support/hostile.js';
import { basic } from '../support/oauth.js';

/**
 * What the HTTP parser and the router refuse before any route runs, whatever the route would
 * have answered (a page included): the contract's JSON error, from the handlers src/app.ts
 * hands Fastify (src/http/error-handler.ts `clientErrorHandler`, `frameworkErrors`).
 */
const PARSER_REFUSALS = new Set([
  '{"error":"invalid_request","error_description":"the request is malformed"}',
  '{"error":"invalid_request","error_description":"the request headers are too large"}',
  '{"error":"invalid_request","error_description":"the path is not valid percent-encoded UTF-8"}',
  '{"error":"invalid_request","error_description":"a path segment is too long"}',
]);

const asResponse = (raw: RawResponse): LightMyRequestResponse =>
  ({ statusCode: raw.status, headers: raw.headers, body: raw.body, json: () => JSON.parse(raw.body) }) as unknown as LightMyRequestResponse;

const latin1 = (text: string): Buffer => Buffer.from(text, 'latin1');

describe('raw requests on a listening server', () => {
  let f: HostileFixture;
  let port: number;

  beforeAll(async () => {
    f = await startHostileApp({ listen: true });
    port = Number(new URL(f.t.baseUrl).port);
  });
  afterAll(() => f.t.close());

  /** Routes of each kind, with a request that would be valid there. */
  const targets = () => [
    { method: 'POST', path: `${f.path}/access_token`, kind: 'oauth' as AnswerKind, body: 'grant_type=client_credentials', auth: basic(f.service.clientId, f.service.secret), type: 'application/x-www-form-urlencoded', limit: OAUTH_BODY_LIMIT },
    { method: 'GET', path: `${f.path}/userinfo`, kind: 'oauth' as AnswerKind, body: '', auth: 'Bearer x', type: '', limit: OAUTH_BODY_LIMIT },
    { method: 'GET', path: `${f.path}/authorize`, kind: 'page' as AnswerKind, body: '', auth: '', type: '', limit: OAUTH_BODY_LIMIT },
    { method: 'POST', path: `${f.path}/login`, kind: 'page' as AnswerKind, body: 'transaction=x', auth: '', type: 'application/x-www-form-urlencoded', limit: OAUTH_BODY_LIMIT },
    { method: 'POST', path: '/admin/realms', kind: 'admin' as AnswerKind, body: '{"name":"from-raw"}', auth: `Bearer ${ADMIN_TOKEN}`, type: 'application/json', limit: ADMIN_BODY_LIMIT },
    { method: 'POST', path: `${f.path}/connect/register`, kind: 'oauth' as AnswerKind, body: '{}', auth: 'Bearer x', type: 'application/json', limit: REGISTRATION_BODY_LIMIT },
  ];

  /** Any answer but a 5xx, in its route's shape or as the parser or router refuse; with nothing internal or secret. */
  function expectRawAnswer(raw: RawResponse | undefined, kind: AnswerKind, allow: readonly number[]): number {
    expect(raw, 'the server answered').toBeDefined();
    const answer = raw!;
    expect(answer.status).toBeLessThan(500);
    // Node's own refusals have no body: a request without Host (400), an Expect it does not know (417).
    if (PARSER_REFUSALS.has(answer.body) || (answer.body === '' && [400, 417].includes(answer.status))) {
      expect([400, 414, 417, 431]).toContain(answer.status);
      for (const secret of f.secrets) expect(answer.body.includes(secret)).toBe(false);
      return answer.status;
    }
    // A byte that ends the path early can leave a path no route has: the JSON 404 of any unknown path.
    if (answer.status === 404 && answer.body === '{"error":"not_found","error_description":"no such resource"}') return 404;
    return expectAnswer(f, asResponse(answer), { kind, allow });
  }

  const request = (head: string, body: Buffer | string = ''): Buffer => {
    const bytes = typeof body === 'string' ? latin1(body) : body;
    return Buffer.concat([latin1(head), latin1(`Content-Length: ${bytes.length}\r\nConnection: close\r\n\r\n`), bytes]);
  };

  /** Bytes no URL should carry: invalid UTF-8, controls, spaces, and the characters that end a path. */
  const rawBytes = fc.oneof(
    fc.uint8Array({ minLength: 1, maxLength: 8 }).map((bytes) => Buffer.from(bytes)),
    fc.constantFrom(...[[0xff, 0xfe], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0x00], [0x7f], [0x0d], [0x0a], [0x20], [0x09], [0x23], [0x3f], [0x25], [0x25, 0x30], [0xe2, 0x80, 0xae]].map((bytes) => Buffer.from(bytes))),
  );

  it('refuses invalid UTF-8, controls and separators in the request line', async () => {
    const arbitrary = fc.record({ target: fc.constantFrom(...targets()), where: fc.constantFrom('path', 'query-name', 'query-value'), bytes: rawBytes });
    await hostileProperty(f, BUDGET.raw * 3, arbitrary, async ({ target, where, bytes }) => {
      const url =
        where === 'path'
          ? Buffer.concat([latin1(`${target.path}/`), bytes])
          : where === 'query-name'
            ? Buffer.concat([latin1(`${target.path}?`), bytes, latin1('=1')])
            : Buffer.concat([latin1(`${target.path}?client_id=`), bytes]);
      const head = Buffer.concat([latin1(`${target.method} `), url, latin1(` HTTP/1.1\r\nHost: auth.test\r\n${target.auth ? `Authorization: ${target.auth}\r\n` : ''}${target.type ? `Content-Type: ${target.type}\r\n` : ''}`)]);
      const raw = await rawExchange(port, request(head.toString('latin1'), target.body));
      // A byte that ends the path (a space, `#`, `?`) may leave a path the route serves.
      return expectRawAnswer(raw, target.kind, target.kind === 'page' ? [200, 302, 303] : [200, 201]);
    });
  });

  const hostileHeader = fc.oneof(
    fc
      .tuple(fc.constantFrom('Authorization', 'Cookie', 'Content-Type', 'X-Forwarded-For', 'Host', 'Accept', 'If-None-Match', 'X-Custom'), rawBytes)
      .map(([name, value]) => Buffer.concat([latin1(`${name}: `), value])),
    fc.constantFrom(
      'NoColon',
      ' Leading-Space: x',
      'X-A: a\rb',
      'X-Fold: a\r\n b',
      'Bad Name: x',
      ': empty-name',
      'Content-Length: 5',
      'Content-Length: -1',
      'Content-Length: 1e3',
      'Content-Length: 99999999999999999999',
      'Transfer-Encoding: chunked',
      'Transfer-Encoding: gzip, chunked',
      'Transfer-Encoding: identity',
      'Host: evil.example',
      'Host: auth.test\r\nHost: evil.example',
      'Expect: 100-continue',
      'Expect: something-else',
      'Content-Encoding: gzip',
      'Content-Type: application/x-www-form-urlencoded; charset=\xff',
      'Authorization: Basic \xff\xfe',
      'Authorization: Basic Og==\r\nAuthorization: Basic Og==',
      `Cookie: rg_session_hostile=\xff; rg_browser_hostile=${'a'.repeat(4_000)}`,
      'X-Forwarded-Host: evil.example',
      'X-Forwarded-Proto: javascript',
    ).map(latin1),
    fc.constantFrom(8_000, 15_000, 17_000, 40_000).map((length) => latin1(`X-Big: ${'a'.repeat(length)}`)),
    fc.constantFrom(100, 1_000, 2_100).map((count) => latin1(Array.from({ length: count }, (_, index) => `X-H${index}: v`).join('\r\n'))),
  );

  it('refuses malformed, conflicting and oversized headers', async () => {
    const arbitrary = fc.record({ target: fc.constantFrom(...targets()), headers: fc.array(hostileHeader, { minLength: 1, maxLength: 3 }) });
    await hostileProperty(f, BUDGET.raw * 3, arbitrary, async ({ target, headers }) => {
      const head = Buffer.concat([
        latin1(`${target.method} ${target.path} HTTP/1.1\r\nHost: auth.test\r\n`),
        ...headers.flatMap((header) => [header, latin1('\r\n')]),
        latin1(`${target.auth ? `Authorization: ${target.auth}\r\n` : ''}${target.type ? `Content-Type: ${target.type}\r\n` : ''}`),
      ]);
      const raw = await rawExchange(port, request(head.toString('latin1'), target.body));
      // Headers the route ignores (a hostile Host, X-Forwarded-* without TRUST_PROXY) leave a valid request valid.
      return expectRawAnswer(raw, target.kind, target.kind === 'page' ? [200, 302, 303] : [200, 201]);
    });
  });

  it('refuses broken and oversized bodies, declared or chunked', async () => {
    const chunked = (chunks: readonly string[]) => `${chunks.map((chunk) => `${Buffer.byteLength(chunk, 'latin1').toString(16)}\r\n${chunk}\r\n`).join('')}0\r\n\r\n`;
    const body = fc.oneof(
      fc.record({ kind: fc.constant('declared-larger' as const), over: fc.constantFrom(1, 10_000_000, 2 ** 40) }),
      fc.record({ kind: fc.constant('chunked' as const), chunks: fc.array(fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes).toString('latin1')), { maxLength: 4 }) }),
      fc.record({ kind: fc.constant('chunked-huge' as const), chunks: fc.constantFrom(5, 20).map((count) => Array.from({ length: count }, () => 'a'.repeat(16_384))) }),
      fc.record({ kind: fc.constant('bad-chunk' as const), text: fc.constantFrom('zz\r\nabc\r\n0\r\n\r\n', '3\r\nabcdef\r\n0\r\n\r\n', '-1\r\nx\r\n0\r\n\r\n', '3;ext=\xff\r\nabc\r\n0\r\n\r\n', `${'f'.repeat(20)}\r\nx\r\n0\r\n\r\n`) }),
      fc.record({ kind: fc.constant('raw' as const), bytes: fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)) }),
    );
    await hostileProperty(f, BUDGET.raw * 3, fc.record({ target: fc.constantFrom(...targets().filter((target) => target.method === 'POST')), body }), async ({ target, body: hostile }) => {
      const head = `${target.method} ${target.path} HTTP/1.1\r\nHost: auth.test\r\n${target.auth ? `Authorization: ${target.auth}\r\n` : ''}Content-Type: ${target.type}\r\n`;
      let bytes: Buffer | Buffer[];
      if (hostile.kind === 'declared-larger') bytes = latin1(`${head}Content-Length: ${target.limit + hostile.over}\r\nConnection: close\r\n\r\n${target.body}`);
      else if (hostile.kind === 'chunked' || hostile.kind === 'chunked-huge') bytes = latin1(`${head}Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunked(hostile.chunks)}`);
      else if (hostile.kind === 'bad-chunk') bytes = latin1(`${head}Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n${hostile.text}`);
      else bytes = request(head, hostile.bytes);
      const raw = await rawExchange(port, bytes);
      // The limit holds however the body comes: declared (refused before it is read) or chunked (refused once past it).
      const over = hostile.kind === 'declared-larger' || (hostile.kind === 'chunked-huge' && hostile.chunks.length * 16_384 > target.limit);
      if (over) expect(raw?.status, raw?.body).toBe(413);
      return expectRawAnswer(raw, target.kind, target.kind === 'page' ? [200, 302, 303] : [200, 201]);
    });
    // Still listening: a new connection is served.
    expect((await rawExchange(port, latin1('GET /healthz HTTP/1.1\r\nHost: auth.test\r\nConnection: close\r\n\r\n')))?.status).toBe(200);
  });

  describe('input limits (README "Input limits")', () => {
    const auth = () => ({ authorization: basic(f.service.clientId, f.service.secret), 'content-type': 'application/x-www-form-urlencoded' });
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const json = (response: LightMyRequestResponse) => {
      expectJsonError(response);
      return { status: response.statusCode, ...(response.json() as { error: string; error_description?: string }) };
    };

    it('bodies: 64 KiB at the OAuth endpoints, 256 KiB at the admin API and registration, else 413', async () => {
      const form = (size: number) => `grant_type=client_credentials&x=${'a'.repeat(size - 'grant_type=client_credentials&x='.length)}`;
      expect((await send(f.app, { method: 'POST', url: `${f.path}/access_token`, headers: auth(), body: form(OAUTH_BODY_LIMIT) })).statusCode).toBe(200);
      expect(json(await send(f.app, { method: 'POST', url: `${f.path}/access_token`, headers: auth(), body: form(OAUTH_BODY_LIMIT + 1) })).status).toBe(413);
      const realm = (size: number) => `{"name":"limits","settings":{},"x":"${'a'.repeat(size - '{"name":"limits","settings":{},"x":""}'.length)}"}`;
      expect(json(await send(f.app, { method: 'POST', url: '/admin/realms', headers: admin, body: realm(ADMIN_BODY_LIMIT) })).status).toBe(400);
      expect(json(await send(f.app, { method: 'POST', url: '/admin/realms', headers: admin, body: realm(ADMIN_BODY_LIMIT + 1) })).status).toBe(413);
      const registration = `{"client_name":"${'a'.repeat(REGISTRATION_BODY_LIMIT)}"}`;
      expect(json(await send(f.app, { method: 'POST', url: `${f.path}/connect/register`, headers: { 'content-type': 'application/json', authorization: 'Bearer x' }, body: registration })).status).toBe(413);
    });

    it(`parameters: at most ${FORM_LIMITS.parameters} names, values of ${FORM_LIMITS.valueBytes} bytes (usernames 1 KiB; JWTs and assertions the body limit)`, async () => {
      const many = Array.from({ length: FORM_LIMITS.parameters }, (_, index) => `p${index}=1`).join('&');
      expect((await send(f.app, { method: 'POST', url: `${f.path}/access_token`, headers: auth(), body: `grant_type=client_credentials&${many}` })).statusCode).toBe(400);
      expect((await send(f.app, { method: 'POST', url: `${f.path}/access_token`, headers: auth(), body: `grant_type=client_credentials&${many.split('&').slice(1).join('&')}` })).statusCode).toBe(200);
      const scope = (bytes: number) => ({ method: 'POST' as const, url: `${f.path}/access_token`, headers: auth(), body: `grant_type=client_credentials&scope=${'openid%20'.repeat(bytes / 7)}` });
      expect(json(await send(f.app, scope(FORM_LIMITS.valueBytes + 7)))).toMatchObject({ status: 400, error_description: 'the scope parameter is too long' });
      expect((await send(f.app, scope(FORM_LIMITS.valueBytes - 7))).statusCode).toBe(200);
      // An incompressible username of 3 KiB: the sign-in limits count failures by username (it was a 500 on PostgreSQL's index).
      const username = randomBytes(1_500).toString('hex');
      const password = await send(f.app, { method: 'POST', url: `${f.path}/access_token`, headers: auth(), body: `grant_type=password&username=${username}&password=x`, remoteAddress: '10.9.8.7' });
      expect(json(password)).toMatchObject({ status: 400, error_description: 'the username parameter is too long' });
      // A SAML assertion may fill the body.
      const assertion = await send(f.app, { method: 'POST', url: `${f.path}/access_token`, headers: auth(), body: `grant_type=urn:ietf:params:oauth:grant-type:saml2-bearer&assertion=${'A'.repeat(60_000)}` });
      expect(json(assertion)).toMatchObject({ status: 400, error: 'invalid_grant' });
    });

    it(`JSON: nested at most ${MAX_JSON_DEPTH} levels, at the admin API and registration`, async () => {
      const nested = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;
      for (const depth of [MAX_JSON_DEPTH + 1, 5_000, 100_000]) {
        const claims = await send(f.app, { method: 'POST', url: `/admin/realms/${f.realm}/users`, headers: admin, body: `{"username":"deep${depth}","password":"long enough","claims":{"a":${nested(depth)}}}` });
        expect(json(claims).status, `claims nested ${depth} deep`).toBe(400);
        const jwks = `{"grant_types":["client_credentials"],"token_endpoint_auth_method":"private_key_jwt","jwks":{"keys":[{"kty":"EC","x":${nested(depth)}}]}}`;
        expect(json(await send(f.app, { method: 'POST', url: `/admin/realms/${f.realm}/clients`, headers: admin, body: jwks })).status).toBe(400);
        const initial = (await f.t.admin.request('POST', `/realms/${f.realm}/initial-access-tokens`, {})).json().token as string;
        const registration = await send(f.app, { method: 'POST', url: `${f.path}/connect/register`, headers: { 'content-type': 'application/json', authorization: `Bearer ${initial}` }, body: jwks });
        expect(json(registration)).toMatchObject({ status: 400, error: 'invalid_client_metadata' });
      }
      const shallow = await send(f.app, { method: 'POST', url: `/admin/realms/${f.realm}/users`, headers: admin, body: `{"username":"shallow","password":"long enough","claims":{"a":${nested(MAX_JSON_DEPTH - 2)}}}` });
      expect(shallow.statusCode, shallow.body).toBe(201);
    });

    it("URL and headers: Node's 16 KiB limit answers 431; an URL just under it reaches the route", async () => {
      const long = await rawExchange(port, latin1(`GET ${f.path}/authorize?client_id=${'a'.repeat(17_000)} HTTP/1.1\r\nHost: auth.test\r\nConnection: close\r\n\r\n`));
      expect(long?.status).toBe(431);
      const header = await rawExchange(port, latin1(`GET /healthz HTTP/1.1\r\nHost: auth.test\r\nX-Big: ${'a'.repeat(17_000)}\r\nConnection: close\r\n\r\n`));
      expect(header?.status).toBe(431);
      const under = await rawExchange(port, latin1(`GET ${f.path}/authorize?state=${'a'.repeat(15_000)} HTTP/1.1\r\nHost: auth.test\r\nConnection: close\r\n\r\n`));
      expect(under?.status).toBe(400);
      expect(under?.headers['content-type']).toMatch(/^text\/html/);
      await expectHealthy(f);
    });
  });

  /** src/app.ts passes `clientErrorHandler` and `frameworkErrors` (src/http/error-handler.ts) to Fastify. */
  it('refusals of the parser and router are in the contract shape, with no-store', async () => {
    for (const [bytes, status] of [
      [latin1(`GET ${f.path}/\xff HTTP/1.1\r\nHost: auth.test\r\nConnection: close\r\n\r\n`), 400],
      [latin1(`GET /healthz HTTP/1.1\r\nHost: auth.test\r\nX-Big: ${'a'.repeat(17_000)}\r\nConnection: close\r\n\r\n`), 431],
      [latin1(`GET /oauth2/%ff/login HTTP/1.1\r\nHost: auth.test\r\nConnection: close\r\n\r\n`), 400],
      // Longer than any maxParamLength src/app.ts may choose (a username needs 1,530 characters percent-encoded).
      [latin1(`GET /admin/realms/${f.realm}/clients/${'a'.repeat(5_000)} HTTP/1.1\r\nHost: auth.test\r\nConnection: close\r\n\r\n`), 414],
    ] as const) {
      const raw = await rawExchange(port, bytes);
      expect(raw?.status).toBe(status);
      expectJsonError(asResponse(raw!));
    }
  });
});
