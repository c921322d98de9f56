import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matchesHash, sha256 } from '../../src/secrets.js';
import { ADMIN_TOKEN, type TestApp, startTestApp } from '../support/app.js';
import { REDIRECT_URI, TestBrowser, location, obtainCode } from '../support/flow.js';
import { basic, postForm, realmPath } from '../support/oauth.js';
import { personIn, securityRealm } from './support.js';

const SRC = join(import.meta.dirname, '..', '..', 'src');
/** The resource-server package's sources: paths below name them from SRC, as `../packages/resource-server/src/…`. */
const RESOURCE_SERVER_SRC = join(SRC, '..', 'packages', 'resource-server', 'src');
const PLUGIN = '../packages/resource-server/src';

function filesBelow(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesBelow(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

const sourceFiles = (): string[] => [...filesBelow(SRC), ...filesBelow(RESOURCE_SERVER_SRC)];

const source = (file: string): string => readFileSync(join(SRC, file), 'utf8');

/** Words that name a secret, or something derived from one that an attacker could learn byte by byte. */
const SECRET_WORD = /secret|token|csrf|mac\b|verifier|password|passwd|hash|digest|challenge|thumbprint|signature|otp|recovery|binding/i;

/**
 * Comparisons in the source where an operand names a secret: `a === b` and friends, with
 * neither side a literal, undefined, null or a typeof; and the Buffer comparisons that stop at
 * the first difference.
 */
function secretComparisons(): string[] {
  const found: string[] = [];
  for (const file of sourceFiles()) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, i) => {
      const code = line.replace(/\/\/.*$/, '').replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`\\]|\\.)*`/g, "''");
      const where = `${relative(SRC, file)}:${i + 1}`;
      for (const match of code.matchAll(/([\w$.?[\]()]+)\s*(===|!==|==|!=)\s*([\w$.?[\]()]+)/g)) {
        // An operand as written, without the parentheses around it; what it names is its last property.
        const [left, right] = [match[1]!, match[3]!].map((side) => side.replace(/^[(!]+|\)+$/g, ''));
        const literal = (side: string) => /^(undefined|null|true|false|''|\d+|typeof)$/.test(side) || /\.(length|size)$/.test(side);
        if (literal(left!) || literal(right!)) continue;
        const named = (side: string) => SECRET_WORD.test(side.split(/\??\./).pop()!);
        if (named(left!) || named(right!)) found.push(`${where} ${left} ${match[2]} ${right}`);
      }
      if (/\.equals\(|Buffer\.compare\(|\.localeCompare\(/.test(code) && SECRET_WORD.test(code)) found.push(`${where} ${code.trim()}`);
    });
  }
  return found;
}

/**
 * Comparisons of secrets take the same time wherever they differ (RFC 9700 has none of its
 * own; RFC 6749 §10.10 and OWASP ask it of every credential): a response time cannot be
 * measured reliably enough in a test, so this is shown by reading the source, as plainly
 * said here and in SECURITY.md. Every secret the server checks is either
 *
 * - compared as SHA-256 digests with crypto.timingSafeEqual (`matchesHash`: client secrets,
 *   the admin token, registration access tokens), or directly with crypto.timingSafeEqual
 *   after a length check (CSRF tokens, the notice MAC, the browser binding of a transaction);
 * - compared once: the PKCE verifier's S256, by the statement that spends its code
 *   (src/store/code-exchange.ts), so that a timing difference has no second try to add up in;
 * - looked up by its SHA-256 in an index (access, refresh and initial access tokens, codes,
 *   device codes, auth_req_id, sessions, transactions, request_uri, recovery codes, WebAuthn
 *   challenges), where a timing difference tells about the digest, not the secret;
 * - verified by a library that compares in constant time (argon2 for passwords, with a dummy
 *   verification for unknown usernames; otpauth for TOTP codes).
 *
 * Then, through HTTP, presented values of every length are refused without a fault (a
 * timingSafeEqual of unequal lengths throws, which would be a 500).
 */
describe('timing-safe comparison of secrets', () => {
  describe('in the source', () => {
    it('compares no secret with ===, !==, Buffer.equals or Buffer.compare: only public values named like one, each reviewed', () => {
      const reviewed = new Map<string, string>([
        ['secrets.ts', 'expected === storedHash: whether a stored hash was there at all (identity, after the constant-time comparison)'],
        ['grants/refresh-token.ts', "certificateThumbprint: the SHA-256 of the client's certificate (RFC 8705 §3.1), public"],
        ['client-auth/self-signed-tls-client-auth.ts', 'thumbprintOf(key) === thumbprint: a public key of the client against its certificate'],
        ['endpoints/userinfo.ts', "certificateThumbprint: the SHA-256 of the client's certificate (RFC 8705 §3.1), public"],
        ['grants/token-exchange.ts', 'requested_token_type: a token type URN (RFC 8693 §3), public'],
        ['grants/presented-token.ts', 'type === TOKEN_TYPES.*: token type URNs, public'],
        ['grants/id-jag-issuance.ts', 'type === TOKEN_TYPES.*: token type URNs (RFC 8693 §3), public'],
        ['grants/transaction-token.ts', 'subject_token_type !== TOKEN_TYPES.accessToken: a token type URN (RFC 8693 §3), public'],
        ['admin/console/browser/settings.ts', "name === TRANSACTION_TOKENS: the name of a realm setting, public"],
        ['records/client-changes.ts', "token_endpoint_auth_method: a client's authentication method, public"],
        ['admin/realm-data/import-identity-providers.ts', "a provider's secret against the document's: the admin API's caller holds the admin token and sent that secret"],
        ['admin/realm-data/import-people.ts', "a password hash against the document's: the admin API's caller holds the admin token and sent that hash"],
        ['dpop/presentation.ts', 'proof.thumbprint !== boundKey: the RFC 7638 thumbprint of a public key, public'],
        ['endpoints/par.ts', "dpopJkt !== proof.thumbprint: the RFC 7638 thumbprint of the proof's public key, public"],
        ['profiles/fapi2.ts', 'grantType === PASSWORD_GRANT: a grant type URN, public'],
        [`${PLUGIN}/dpop.ts`, "verified.thumbprint !== jkt: the RFC 7638 thumbprint of the proof's public key, public"],
      ]);
      const found = secretComparisons();
      const unreviewed = found.filter((line) => !reviewed.has(line.slice(0, line.indexOf(':'))));
      expect(unreviewed, 'a comparison of a secret-named value: use matchesHash or timingSafeEqual, or review it here').toEqual([]);
      // The scan sees the reviewed ones: it would see a new one.
      expect(new Set(found.map((line) => line.slice(0, line.indexOf(':'))))).toEqual(new Set(reviewed.keys()));
    });

    it('calls timingSafeEqual only on operands of equal length: a length check first, or two SHA-256 digests', () => {
      const callers = sourceFiles().filter((file) => readFileSync(file, 'utf8').includes('timingSafeEqual('));
      expect(callers.map((file) => relative(SRC, file)).sort()).toEqual([
        `${PLUGIN}/certificate.ts`,
        `${PLUGIN}/shared/dpop-proof.ts`,
        'web/authorization-flow.ts',
        'web/browser-cookies.ts',
        'dpop/nonces.ts',
        'secrets.ts',
      ].sort());
      // Each call, with the line before it: where the lengths are made equal or checked.
      expect(source('secrets.ts')).toMatch(/storedHash\?\.length === presentedHash\.length \? storedHash : Buffer\.alloc\(presentedHash\.length\);\n\s*return timingSafeEqual\(presentedHash, expected\)/);
      expect(source('web/browser-cookies.ts').match(/given\.length === expected\.length && timingSafeEqual\(given, expected\)/g)).toHaveLength(2);
      expect(source('store/code-exchange.ts'), 'the verifier, once: in the statement that spends its code').toMatch(
        /UPDATE authorization_codes c SET used_at = now\(\)[\s\S]{0,400}c\.code_challenge IS NOT DISTINCT FROM \$5::text AS verifier_matches/,
      );
      for (const file of [`${PLUGIN}/certificate.ts`, `${PLUGIN}/shared/dpop-proof.ts`, 'dpop/nonces.ts']) {
        expect(source(file), file).toMatch(/left\.length === right\.length && timingSafeEqual\(left, right\)/);
      }
      // The transaction's binding and the browser's are both SHA-256 digests (32 bytes).
      expect(source('web/authorization-flow.ts')).toMatch(/const browserHash = this\.cookies\.browserHash\(request, realm\);[\s\S]{0,200}timingSafeEqual\(browserHash, transaction\.browserHash\)/);
      expect(source('web/browser-cookies.ts')).toMatch(/return binding === undefined \? undefined : sha256\(binding\);/);
    });

    it('checks each credential with a constant-time comparison, or by its SHA-256 in an index', () => {
      expect(source('admin/auth.ts'), 'the admin token').toMatch(/matchesHash\(token, deps\.tokenHash\)/);
      expect(source('client-auth/client-secret.ts'), 'client_secret_basic and _post').toMatch(/matchesHash\(presented\.secret, client\.secretHash\)/);
      expect(source('client-auth/authenticate.ts'), 'an unknown client costs a comparison too').toMatch(/matchesHash\(presented\.secret, undefined\)/);
      expect(source('endpoints/client-registration.ts'), 'the registration access token').toMatch(/matchesHash\(token, stored\)/);
      expect(source('endpoints/client-registration.ts'), 'the client secret of a registration update').toMatch(/matchesHash\(presentedSecret, locked\.secretHash\)/);
      expect(source('web/browser-cookies.ts'), 'CSRF tokens and the notice MAC').toMatch(/csrfTokenMatches[\s\S]*timingSafeEqual/);
      expect(source('authn/password-verification.ts'), 'passwords: argon2, with a dummy hash for unknown usernames').toMatch(/argon2\.verify\(await dummy\(hashing\), password\)/);
      for (const [file, lookup] of [
        ['endpoints/introspect.ts', 'tokens.find(sha256(token))'],
        ['endpoints/userinfo.ts', 'tokens.find(sha256(token))'],
        ['grants/refresh-token.ts', 'sha256(params.refresh_token)'],
        ['grants/authorization-code.ts', 'sha256(params.code)'],
        ['grants/poll.ts', 'poll(sha256(secret)'],
        ['web/authorize.ts', 'usePushed(sha256(trusted.request_uri)'],
        ['web/authorization-flow.ts', 'sessions.find(sha256(secret)'],
        ['web/authorization-flow.ts', 'authorizationFlow.find(sha256(transactionId)'],
        ['endpoints/client-registration.ts', 'initialAccessTokenHash = sha256(token)'],
        ['authn/otp.ts', 'return sha256(code)'],
      ] as const) {
        expect(source(file), `${file}: ${lookup}`).toContain(lookup);
      }
      // otpauth's validate compares each candidate code with crypto.timingSafeEqual; otp.ts hands it six digits only.
      const otpauth = readFileSync(createRequire(import.meta.url).resolve('otpauth').replace(/otpauth\.node\.cjs$/, 'otpauth.node.mjs'), 'utf8');
      expect(otpauth).toMatch(/if \(timingSafeEqual\(token, generatedToken\)\)/);
      expect(otpauth).toMatch(/return crypto\.timingSafeEqual\(/);
      expect(source('authn/otp.ts')).toMatch(/if \(!\/\^\\d\+\$\/\.test\(code\) \|\| code\.length !== DIGITS\) return undefined;/);
    });

    it('matchesHash answers false, never throws, for a missing hash or one of another length', () => {
      expect(matchesHash('secret', sha256('secret'))).toBe(true);
      expect(matchesHash('secret', undefined)).toBe(false);
      expect(matchesHash('secret', Buffer.alloc(0))).toBe(false);
      expect(matchesHash('secret', Buffer.alloc(64))).toBe(false);
      expect(matchesHash('', sha256('secret'))).toBe(false);
    });
  });

  describe('through HTTP: presented secrets of any length are refused, never a fault', () => {
    let t: TestApp;
    let realm: string;
    const lengths = [0, 1, 31, 32, 33, 42, 43, 44, 64, 128, 129, 1000];
    const of = (length: number) => 'A'.repeat(length);

    beforeAll(async () => {
      t = await startTestApp();
      realm = await securityRealm(t, { open_registration: true });
    });
    afterAll(async () => {
      await t?.close();
    });

    it('the admin token', async () => {
      for (const length of [...lengths, ADMIN_TOKEN.length]) {
        const response = await t.app.inject({ method: 'GET', url: '/admin/realms', headers: { authorization: `Bearer ${of(length)}` } });
        expect(response.statusCode, String(length)).toBe(401);
      }
    });

    it('a client secret, Basic and post', async () => {
      const client = await t.admin.serviceClient(realm);
      const post = await t.admin.createClient(realm, { grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_post' });
      for (const length of [...lengths, client.secret.length]) {
        const secret = of(Math.max(length, 1));
        const viaBasic = await postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: 'client_credentials' }, { authorization: basic(client.clientId, secret) });
        expect(viaBasic.statusCode, String(length)).toBe(401);
        const viaPost = await postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: 'client_credentials', client_id: post.client_id, client_secret: secret });
        expect(viaPost.statusCode, String(length)).toBe(401);
        const unknown = await postForm(t.app, `${realmPath(realm)}/access_token`, { grant_type: 'client_credentials' }, { authorization: basic('nobody', secret) });
        expect(unknown.statusCode, String(length)).toBe(401);
      }
    });

    it('a registration access token', async () => {
      const registered = await t.app.inject({ method: 'POST', url: `${realmPath(realm)}/connect/register`, payload: { redirect_uris: ['https://app.example/callback'] } });
      const { client_id: clientId } = registered.json() as { client_id: string };
      for (const length of lengths.filter((n) => n > 0)) {
        const response = await t.app.inject({ method: 'GET', url: `${realmPath(realm)}/connect/register/${clientId}`, headers: { authorization: `Bearer ${of(length)}` } });
        expect(response.statusCode, String(length)).toBe(401);
      }
    });

    it('a PKCE verifier', async () => {
      const user = await personIn(t, realm);
      const web = await t.admin.createClient(realm, { client_type: 'public', redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code'], scope: 'openid' });
      for (const length of lengths) {
        const flow = await obtainCode(new TestBrowser(t.app, t.baseUrl), realm, { clientId: web.client_id, username: user.username, password: user.password, params: { scope: 'openid' } });
        const response = await postForm(t.app, `${realmPath(realm)}/access_token`, {
          grant_type: 'authorization_code',
          code: flow.code,
          redirect_uri: REDIRECT_URI,
          client_id: web.client_id,
          ...(length > 0 ? { code_verifier: of(length) } : {}),
        });
        expect(response.statusCode, String(length)).toBe(400);
        expect(response.json(), String(length)).toMatchObject({ error: expect.stringMatching(/^invalid_(grant|request)$/) });
      }
    });

    it('a CSRF token and the MAC of a notice', async () => {
      const user = await personIn(t, realm);
      const b = new TestBrowser(t.app, t.baseUrl);
      const start = await b.get(`${realmPath(realm)}/account`);
      const loginUrl = location(start);
      await b.submit(loginUrl, await b.get(loginUrl), { username: user.username, password: user.password });
      for (const length of lengths.filter((n) => n > 0)) {
        const form = await b.post(`${realmPath(realm)}/account/recovery-codes`, { csrf: of(length) });
        expect(form.statusCode, String(length)).toBe(400);
        const device = await b.post(`${realmPath(realm)}/device/user`, { csrf: of(length), user_code: 'BCDF-GHJK' });
        expect(device.statusCode, String(length)).toBe(400);
        const notice = await b.get(`${realmPath(realm)}/account?notice=Hello&mac=${of(length)}`);
        expect(notice.statusCode, String(length)).toBe(200);
        expect(notice.body).not.toContain('Hello');
      }
    });
  });
});
