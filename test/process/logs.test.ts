import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic } from '../support/oauth.js';
import {
  type ProcessStore,
  type RunningServer,
  admin,
  buildOnce,
  createProcessStore,
  postForm,
  startServer,
  stopAll,
} from '../support/process.js';

const secret = (): string => randomBytes(24).toString('base64url');

interface LogLine {
  msg?: string;
  url?: string;
  status?: number;
}

function logLines(output: string): LogLine[] {
  return output.split('\n').flatMap((line) => {
    try {
      return [JSON.parse(line) as LogLine];
    } catch {
      return [];
    }
  });
}

describe('the log of a full run, at the most verbose level, holds no secret', () => {
  const ADMIN_TOKEN = `admin-${secret()}`;
  const PASSWORD = `pw-${secret()}`;
  let store: ProcessStore;
  let server: RunningServer;
  /** Every secret that crossed the wire during the run, in the forms it crossed in. */
  const secrets = new Map<string, string>();
  const remember = (name: string, value: string): string => {
    secrets.set(name, value);
    return value;
  };
  let realm: string;

  beforeAll(async () => {
    await buildOnce();
    store = await createProcessStore();
    // trace is pino's most verbose level: everything debug logs and more.
    server = await startServer({ ...store.env, ADMIN_TOKEN, LOG_LEVEL: 'trace' });
    remember('admin token', ADMIN_TOKEN);
    remember('password', PASSWORD);
    if (store.env.MASTER_KEY) remember('master key', store.env.MASTER_KEY);
  });

  afterAll(async () => {
    await stopAll();
    await store?.dispose();
  });

  it('runs the admin API and the OAuth endpoints over HTTP, then stops on SIGTERM', async () => {
    realm = `logs-${randomBytes(3).toString('hex')}`;
    const call = <T = Record<string, unknown>>(method: 'GET' | 'POST' | 'PUT' | 'PATCH', path: string, body?: unknown) =>
      admin<T>(server, ADMIN_TOKEN, method, path, body);
    const issuer = `${server.baseUrl}/oauth2/${realm}`;

    await call('POST', '/realms', { name: realm });
    await call('PUT', `/realms/${realm}/scopes/api:read`, { description: 'Read the API' });
    const basicClient = await call<{ client_id: string; client_secret: string }>('POST', `/realms/${realm}/clients`, {
      grant_types: ['client_credentials'],
      scope: 'api:read',
    });
    const postClient = await call<{ client_id: string; client_secret: string }>('POST', `/realms/${realm}/clients`, {
      grant_types: ['client_credentials'],
      scope: 'api:read',
      token_endpoint_auth_method: 'client_secret_post',
    });
    remember('basic client secret', basicClient.client_secret);
    remember('post client secret', postClient.client_secret);
    const basicAuth = remember('basic credentials', basic(basicClient.client_id, basicClient.client_secret));
    remember('basic credentials, base64', basicAuth.slice('Basic '.length));
    await call('POST', `/realms/${realm}/users`, { username: 'alice', password: PASSWORD });

    // client_secret_basic
    const viaBasic = await postForm(`${issuer}/access_token`, { grant_type: 'client_credentials' }, { authorization: basicAuth });
    expect(viaBasic.status).toBe(200);
    const basicToken = remember('access token (basic)', ((await viaBasic.json()) as { access_token: string }).access_token);

    // client_secret_post
    const viaPost = await postForm(`${issuer}/access_token`, {
      grant_type: 'client_credentials',
      client_id: postClient.client_id,
      client_secret: postClient.client_secret,
    });
    expect(viaPost.status).toBe(200);
    const postToken = remember('access token (post)', ((await viaPost.json()) as { access_token: string }).access_token);

    const introspected = await postForm(`${issuer}/introspect`, { token: basicToken }, { authorization: basicAuth });
    expect(introspected.status).toBe(200);
    expect(((await introspected.json()) as { active: boolean }).active).toBe(true);

    const revoked = await postForm(`${issuer}/token/revoke`, { token: basicToken, token_type_hint: 'access_token' }, { authorization: basicAuth });
    expect(revoked.status).toBe(200);

    const wrongSecret = remember('wrong secret', secret());
    const failed = await postForm(`${issuer}/access_token`, { grant_type: 'client_credentials' }, {
      authorization: basic(basicClient.client_id, wrongSecret),
    });
    expect(failed.status).toBe(401);

    // Secrets in query strings, where a careless client puts them.
    const query = new URLSearchParams({ token: postToken, client_secret: postClient.client_secret, access_token: postToken });
    query.append(remember('secret used as a parameter name', secret()), '');
    const discovery = await fetch(`${issuer}/.well-known/openid-configuration?${query}`);
    expect(discovery.status).toBe(200);
    const introspectByQuery = await postForm(`${issuer}/introspect?${query}`, { token: postToken }, { authorization: basicAuth });
    expect(introspectByQuery.status).toBe(200);
    const unknownPath = await fetch(`${server.baseUrl}/no/such/path?${query}`);
    expect(unknownPath.status).toBe(404);

    const rotated = await call<{ client_secret: string }>('POST', `/realms/${realm}/clients/${basicClient.client_id}/secret`);
    remember('rotated client secret', rotated.client_secret);
    const withRotated = await postForm(`${issuer}/access_token`, { grant_type: 'client_credentials' }, {
      authorization: remember('rotated basic credentials', basic(basicClient.client_id, rotated.client_secret)),
    });
    expect(withRotated.status).toBe(200);
    remember('access token (rotated)', ((await withRotated.json()) as { access_token: string }).access_token);

    expect(await server.process.stop()).toEqual({ code: 0, signal: null });
  });

  it('logged one line per request, with its URL and status', () => {
    const lines = logLines(server.process.stdout);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines).toContainEqual(expect.objectContaining({ url: `/oauth2/${realm}/access_token`, status: 200 }));
    expect(lines).toContainEqual(expect.objectContaining({ url: `/oauth2/${realm}/access_token`, status: 401 }));
    expect(lines).toContainEqual(
      expect.objectContaining({ url: expect.stringMatching(new RegExp(`^/oauth2/${realm}/\\.well-known/openid-configuration\\?`)), status: 200 }),
    );
    expect(lines).toContainEqual(expect.objectContaining({ url: `/admin/realms/${realm}/users`, status: 201 }));
  });

  it('logged none of the secrets: admin token, client secrets, password, tokens, credentials', () => {
    const output = server.process.output;
    for (const [name, value] of secrets) {
      expect(output.includes(value), `the log holds the ${name}`).toBe(false);
    }
  });
});
