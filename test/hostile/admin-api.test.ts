import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN,
  BUDGET,
  type HostileFixture,
  type Route,
  expectAnswer,
  hostileAuthorization,
  hostileJsonBody,
  hostilePairs,
  hostileProperty,
  jsonContentType,
  queryString,
  registeredRoutes,
  routableSegment,
  send,
  startHostileApp,
} from '../support/hostile.js';
import { keyPair } from '../support/keys.js';
import { NO_RATE_LIMITS } from '../support/app.js';

const CLIENT_FIELDS = [
  'client_id', 'client_type', 'client_name', 'redirect_uris', 'post_logout_redirect_uris', 'scope', 'grant_types', 'token_endpoint_auth_method',
  'require_pkce', 'require_par', 'require_signed_request_object', 'skip_consent', 'jwks', 'jwks_uri', 'tls_client_auth_subject_dn', 'tls_client_certificate_bound_access_tokens',
  'introspect_any_token', 'id_token_signed_response_alg', 'introspection_signed_response_alg', 'authorization_details_types',
];
const TRUSTED_ISSUER_FIELDS = ['kind', 'issuer', 'jwks', 'jwks_uri', 'certificate_pem', 'subject_mapping', 'client_ids'];

/** The fields each route's body has (CONTRACT.md §5), so that hostile values land where they are read; other routes get any. */
const BODY_FIELDS: Record<string, readonly string[]> = {
  'POST /admin/realms': ['name', 'settings'],
  'PATCH /admin/realms/:realm': ['settings'],
  'POST /admin/realms/:realm/clients': CLIENT_FIELDS,
  'PATCH /admin/realms/:realm/clients/:client_id': CLIENT_FIELDS,
  'POST /admin/realms/:realm/users': ['username', 'password', 'claims'],
  'PATCH /admin/realms/:realm/users/:username': ['password', 'claims'],
  'PUT /admin/realms/:realm/scopes/:name': ['description', 'claims'],
  'PUT /admin/realms/:realm/roles/:role': ['description'],
  'PUT /admin/realms/:realm/groups/:group': ['description', 'roles'],
  'POST /admin/realms/:realm/trusted-issuers': TRUSTED_ISSUER_FIELDS,
  'PATCH /admin/realms/:realm/trusted-issuers/:id': TRUSTED_ISSUER_FIELDS,
  'POST /admin/realms/:realm/initial-access-tokens': ['expires_in', 'grant_types', 'scope'],
};

/** Query parameters a listing may read (filters, paging): hostile values for them, and for names no route reads. */
const QUERY_NAMES = ['limit', 'offset', 'cursor', 'since', 'until', 'from', 'to', 'type', 'kind', 'client_id', 'user', 'username', 'outcome'];

/** Admin routes answer JSON, refusals included; a valid call may succeed. */
const ADMIN = { kind: 'admin', allow: [200, 201, 204] } as const;

describe('hostile input at the admin API', () => {
  let f: HostileFixture;
  /** Each route parameter's real value in the victim realm, which the properties may change but not remove. */
  const existing: Record<string, string> = { realm: 'victim', username: 'bob', name: 'api' };
  let routes: Route[];

  beforeAll(async () => {
    f = await startHostileApp();
    await f.t.admin.createRealm('victim', { ...NO_RATE_LIMITS });
    await f.t.admin.putScope('victim', 'api');
    existing.client_id = (await f.t.admin.createClient('victim', { grant_types: ['client_credentials'], scope: 'api' })).client_id;
    await f.t.admin.request('POST', '/realms/victim/users', { username: 'bob', password: 'a long password' });
    const issuer = await f.t.admin.request('POST', '/realms/victim/trusted-issuers', {
      kind: 'jwt',
      issuer: 'https://idp.example.test',
      jwks: { keys: [(await keyPair('ES256')).publicJwk] },
    });
    existing.id = issuer.json().id;
    await f.app.ready();
    // The admin console's page and files read no input (test/admin/console.test.ts sends them some).
    routes = registeredRoutes(f.app, '/admin').filter((route) => !route.path.startsWith('/admin/console'));
  });
  afterAll(() => f.t.close());

  it('finds every route of the admin API', () => {
    // The contract's routes at least (CONTRACT.md §5); any other registered under /admin is attacked too.
    const names = routes.map((route) => `${route.method} ${route.path}`);
    for (const expected of [...Object.keys(BODY_FIELDS), 'GET /admin/realms', 'DELETE /admin/realms/:realm', 'POST /admin/realms/:realm/clients/:client_id/secret', 'POST /admin/realms/:realm/users/:username/totp', 'POST /admin/realms/:realm/keys/rotate', 'GET /admin/realms/:realm/scopes/:name', 'DELETE /admin/realms/:realm/trusted-issuers/:id']) {
      expect(names).toContain(expected);
    }
  });

  /**
   * A route parameter: the real one (so that the body is read), or a hostile segment. The
   * parameter a DELETE removes is always hostile: the fixtures stay.
   */
  function paramValue(route: Route, name: string, last: boolean): fc.Arbitrary<string> {
    const real = existing[name];
    if (real === undefined || (route.method === 'DELETE' && last)) return routableSegment;
    return fc.oneof({ weight: 4, arbitrary: fc.constant(real) }, { weight: 1, arbitrary: routableSegment });
  }

  function hostileCall(route: Route) {
    const names = [...route.path.matchAll(/:([a-z_]+)/g)].map((match) => match[1]!);
    const params = fc.tuple(...names.map((name, index) => paramValue(route, name, index === names.length - 1)));
    const fields = BODY_FIELDS[`${route.method} ${route.path}`] ?? [];
    const hasBody = route.method !== 'GET' && route.method !== 'DELETE';
    return fc.record({
      params,
      query: fc.option(hostilePairs(QUERY_NAMES), { nil: undefined, freq: 2 }),
      authorization: fc.oneof({ weight: 6, arbitrary: fc.constant(`Bearer ${ADMIN_TOKEN}`) }, { weight: 1, arbitrary: hostileAuthorization }, { weight: 1, arbitrary: fc.constant(undefined) }),
      contentType: hasBody ? jsonContentType : fc.option(jsonContentType, { nil: undefined, freq: 4 }),
      body: hasBody ? hostileJsonBody(fields) : fc.option(hostileJsonBody(fields), { nil: undefined, freq: 4 }),
    });
  }

  /** A username may have 255 characters (src/admin/users.ts): src/app.ts raises the router's `maxParamLength` to match. */
  it('reads, changes and deletes a person whose username has 101 to 255 characters', async () => {
    for (const username of ['a'.repeat(101), 'é'.repeat(255)]) {
      expect((await f.t.admin.request('POST', '/realms/victim/users', { username, password: 'a long password' })).statusCode).toBe(201);
      const path = `/realms/victim/users/${encodeURIComponent(username)}`;
      expect((await f.t.admin.request('GET', path)).statusCode).toBe(200);
      expect((await f.t.admin.request('PATCH', path, { claims: { name: 'Long' } })).statusCode).toBe(200);
      expect((await f.t.admin.request('DELETE', path)).statusCode).toBe(204);
    }
  });

  it('attacks each route with hostile path parameters, queries, bodies and tokens', async () => {
    expect(routes.length).toBeGreaterThanOrEqual(29);
    for (const route of routes) {
      let index = 0;
      const label = `${route.method} ${route.path}`;
      await hostileProperty(f, BUDGET.admin, hostileCall(route), async ({ params, query, authorization, contentType, body }) => {
        index = 0;
        const path = route.path.replace(/:([a-z_]+)/g, () => params[index++]!);
        const response = await send(f.app, {
          method: route.method,
          url: query ? `${path}?${queryString(query)}` : path,
          headers: { authorization, 'content-type': contentType },
          ...(body === undefined ? {} : { body }),
        });
        try {
          return expectAnswer(f, response, ADMIN);
        } catch (error) {
          throw new Error(`${label}: ${(error as Error).message}`, { cause: error });
        }
      });
    }
    // The fixtures survived: each is still there.
    for (const path of ['/realms/victim', `/realms/victim/clients/${existing.client_id}`, '/realms/victim/users/bob', `/realms/victim/trusted-issuers/${existing.id}`]) {
      expect((await f.t.admin.request('GET', path)).statusCode, path).toBe(200);
    }
  }, 120_000);
});
