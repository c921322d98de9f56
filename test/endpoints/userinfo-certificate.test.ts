import { mkdtempSync, rmSync } from 'node:fs';
import { type RequestOptions, request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Pair, selfSigned } from '../support/certificates.js';
import { type AuthorizationServer, type Realm, createRealm, startAuthorizationServer } from '../resource-server/support.js';

/**
 * CONTRACT.md §7: UserInfo honours certificate binding (RFC 8705 §3) like every resource
 * server: a token with `cnf` is accepted only over a connection with that certificate.
 */
describe('UserInfo: certificate-bound tokens (RFC 8705 §3)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'realmgate-userinfo-mtls-'));
  let server: Pair;
  let holder: Pair;
  let stranger: Pair;
  let as: AuthorizationServer;

  const https = (options: RequestOptions, body?: string): Promise<{ status: number; body: Record<string, unknown> }> =>
    new Promise((resolve, reject) => {
      const request = httpsRequest({ host: '127.0.0.1', port: as.tlsPort!, ca: server.cert, agent: false, ...options }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      });
      request.on('error', reject);
      request.end(body);
    });

  const userinfo = (realm: Realm, token: string, certificate?: Pair) =>
    https({
      path: `/oauth2/${realm.name}/userinfo`,
      headers: { authorization: `Bearer ${token}` },
      ...(certificate ? { cert: certificate.cert, key: certificate.key } : {}),
    });

  /** A person's token (password grant, `openid`) of a client whose tokens are bound to `certificate`. */
  const boundPersonToken = async (realm: Realm, certificate: Pair): Promise<string> => {
    const created = await as.admin.createClient(realm.name, {
      grant_types: ['password'],
      scope: 'openid',
      tls_client_certificate_bound_access_tokens: true,
    });
    const form = new URLSearchParams({ grant_type: 'password', username: realm.alice.username, password: realm.alice.password, scope: 'openid' });
    const answer = await https(
      {
        method: 'POST',
        path: `/oauth2/${realm.name}/access_token`,
        cert: certificate.cert,
        key: certificate.key,
        headers: {
          authorization: `Basic ${Buffer.from(`${created.client_id}:${created.client_secret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
      },
      form.toString(),
    );
    if (answer.status !== 200) throw new Error(`token: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body.access_token as string;
  };

  beforeAll(async () => {
    server = selfSigned(dir, 'server', '/CN=127.0.0.1', ['subjectAltName=IP:127.0.0.1', 'basicConstraints=critical,CA:FALSE']);
    holder = selfSigned(dir, 'holder', '/CN=holder', ['basicConstraints=critical,CA:FALSE', 'extendedKeyUsage=clientAuth']);
    stranger = selfSigned(dir, 'stranger', '/CN=holder', ['basicConstraints=critical,CA:FALSE', 'extendedKeyUsage=clientAuth']);
    as = await startAuthorizationServer({ tls: server });
  });
  afterAll(async () => {
    await as?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const kind of ['opaque', 'JWT'] as const) {
    it(`answers a bound ${kind} token only over a connection with its certificate`, async () => {
      const realm = await createRealm(as, kind === 'JWT' ? { stateless_tokens: true } : {});
      const token = await boundPersonToken(realm, holder);

      expect(await userinfo(realm, token, holder)).toEqual({ status: 200, body: { sub: realm.alice.sub } });
      for (const certificate of [undefined, stranger]) {
        const refused = await userinfo(realm, token, certificate);
        expect(refused.status).toBe(401);
        expect(refused.body.error).toBe('invalid_token');
      }
    });
  }
});
