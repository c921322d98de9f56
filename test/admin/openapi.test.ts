import { createHash } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenApiDocument, OperationObject, ParameterObject, ResponseObject } from '../../src/admin/openapi/document.js';
import { OPENAPI_DOCUMENT_PATH, REFERENCE_PAGE_PATH, buildOpenApiDocument, renderReferencePage } from '../../src/admin/openapi/index.js';
import { OPERATIONS, responseSchemaOf } from '../../src/admin/openapi/operations.js';
import { escapeHtml } from '../../src/pages/html.js';
import { ADMIN_TOKEN, BASE_URL, type TestApp, startTestApp } from '../support/app.js';
import { registeredRoutes } from '../support/hostile.js';

type Json = Record<string, unknown>;
type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

/** Routes below /admin that describe or present the API rather than being part of it. */
const NOT_OPERATIONS = [`/admin${OPENAPI_DOCUMENT_PATH}`, `/admin${REFERENCE_PAGE_PATH}`];
const isConsole = (path: string) => path === '/admin/console' || path.startsWith('/admin/console/');

/** `#/a/b~1c` in `root`; undefined when it leads nowhere. */
function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined;
    node = (node as Json)[key];
  }
  return node;
}

/** Every `$ref` in the document, with where it is. */
function refsIn(value: unknown, at = '#'): Array<{ at: string; ref: string }> {
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    key === '$ref' && typeof inner === 'string' ? [{ at, ref: inner }] : refsIn(inner, `${at}/${key}`),
  );
}

// ------------------------------------------------------------------------------------------------
// A small JSON Schema check, enough for the keywords the document uses; any other keyword fails
// the test, so that a schema is never passed for want of understanding it.

const ANNOTATIONS = new Set(['description', 'title', 'example', 'examples', 'default', '$schema']);
const KEYWORDS = new Set([
  '$ref', 'type', 'enum', 'const', 'anyOf', 'oneOf', 'properties', 'required', 'additionalProperties', 'propertyNames', 'items',
  'minLength', 'maxLength', 'pattern', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minItems', 'maxItems',
]);
const FORMATS: Record<string, (value: string) => boolean> = {
  'date-time': (value) => !Number.isNaN(Date.parse(value)),
  uri: (value) => URL.canParse(value),
  uuid: (value) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value),
};

/** JSON Schema 2020-12 §7.3. */
const STANDARD_FORMATS = [
  'date-time', 'date', 'time', 'duration', 'email', 'idn-email', 'hostname', 'idn-hostname', 'ipv4', 'ipv6',
  'uri', 'uri-reference', 'iri', 'iri-reference', 'uuid', 'uri-template', 'json-pointer', 'relative-json-pointer', 'regex',
];

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function problems(schema: Json, value: unknown, root: unknown, at = '$'): string[] {
  for (const keyword of Object.keys(schema)) {
    if (!KEYWORDS.has(keyword) && !ANNOTATIONS.has(keyword)) throw new Error(`the test's schema check does not know ${keyword} (at ${at})`);
  }
  if (typeof schema.$ref === 'string') {
    const target = resolvePointer(root, schema.$ref);
    if (!target) return [`${at}: ${schema.$ref} resolves to nothing`];
    return problems(target as Json, value, root, at);
  }
  const found: string[] = [];
  const type = typeOf(value);
  if (schema.type !== undefined) {
    const types = [schema.type].flat() as string[];
    const fits = types.some((wanted) => wanted === type || (wanted === 'integer' && Number.isInteger(value)) || (wanted === 'number' && type === 'number'));
    if (!fits) return [`${at}: ${type}, not ${types.join(' or ')}`];
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((allowed) => JSON.stringify(allowed) === JSON.stringify(value))) found.push(`${at}: not one of the enum`);
  if ('const' in schema && JSON.stringify(schema.const) !== JSON.stringify(value)) found.push(`${at}: not ${JSON.stringify(schema.const)}`);
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const alternatives = schema[keyword] as Json[] | undefined;
    if (!alternatives) continue;
    const matching = alternatives.filter((alternative) => problems(alternative, value, root, at).length === 0).length;
    if (matching === 0 || (keyword === 'oneOf' && matching > 1)) found.push(`${at}: ${matching} of the ${keyword} alternatives match`);
  }
  if (type === 'string') {
    const text = value as string;
    const length = [...text].length;
    if (typeof schema.minLength === 'number' && length < schema.minLength) found.push(`${at}: shorter than ${schema.minLength}`);
    if (typeof schema.maxLength === 'number' && length > schema.maxLength) found.push(`${at}: longer than ${schema.maxLength}`);
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(text)) found.push(`${at}: does not match ${schema.pattern}`);
    const format = typeof schema.format === 'string' ? FORMATS[schema.format] : undefined;
    if (typeof schema.format === 'string' && !format) throw new Error(`the test's schema check does not know the format ${schema.format}`);
    if (format && !format(text)) found.push(`${at}: not a ${String(schema.format)}`);
  }
  if (type === 'number') {
    const number = value as number;
    if (typeof schema.minimum === 'number' && number < schema.minimum) found.push(`${at}: below ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && number > schema.maximum) found.push(`${at}: above ${schema.maximum}`);
    if (typeof schema.exclusiveMinimum === 'number' && number <= schema.exclusiveMinimum) found.push(`${at}: not above ${schema.exclusiveMinimum}`);
    if (typeof schema.exclusiveMaximum === 'number' && number >= schema.exclusiveMaximum) found.push(`${at}: not below ${schema.exclusiveMaximum}`);
  }
  if (type === 'array') {
    const items = value as unknown[];
    if (typeof schema.minItems === 'number' && items.length < schema.minItems) found.push(`${at}: fewer than ${schema.minItems} items`);
    if (typeof schema.maxItems === 'number' && items.length > schema.maxItems) found.push(`${at}: more than ${schema.maxItems} items`);
    if (schema.items) items.forEach((item, index) => found.push(...problems(schema.items as Json, item, root, `${at}[${index}]`)));
  }
  if (type === 'object') {
    const object = value as Json;
    const properties = (schema.properties ?? {}) as Record<string, Json>;
    for (const name of (schema.required ?? []) as string[]) if (!(name in object)) found.push(`${at}.${name}: missing`);
    for (const [name, inner] of Object.entries(object)) {
      if (properties[name]) found.push(...problems(properties[name], inner, root, `${at}.${name}`));
      else if (schema.additionalProperties === false) found.push(`${at}.${name}: not a documented field`);
      else if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
        found.push(...problems(schema.additionalProperties as Json, inner, root, `${at}.${name}`));
      }
      if (schema.propertyNames) found.push(...problems(schema.propertyNames as Json, name, root, `${at} name ${name}`));
    }
  }
  return found;
}

// ------------------------------------------------------------------------------------------------

describe('admin API: the OpenAPI document and its reference page', () => {
  let t: TestApp;
  let document: OpenApiDocument;

  const operations = () =>
    Object.entries(document.paths).flatMap(([path, item]) =>
      METHODS.filter((method) => item[method]).map((method) => ({ method: method.toUpperCase() as Method, path, operation: item[method]! })),
    );
  const operationById = (operationId: string) => {
    const found = operations().find((entry) => entry.operation.operationId === operationId);
    if (!found) throw new Error(`the document has no operation ${operationId}`);
    return found;
  };
  const resolved = (response: ResponseObject | { $ref: string }): ResponseObject =>
    '$ref' in response ? (resolvePointer(document, response.$ref) as ResponseObject) : response;

  beforeAll(async () => {
    t = await startTestApp({ outboundAllow: ['127.0.0.1'] });
    const response = await t.admin.request('GET', OPENAPI_DOCUMENT_PATH);
    expect(response.statusCode, response.body).toBe(200);
    document = response.json() as OpenApiDocument;
  });
  afterAll(() => t.close());

  describe('GET /admin/openapi.json', () => {
    it('answers JSON with the admin token, and 401 without it, like every /admin route (CONTRACT.md §5)', async () => {
      const answer = await t.admin.request('GET', OPENAPI_DOCUMENT_PATH);
      expect(answer.headers['content-type']).toMatch(/^application\/json/);
      expect(answer.json()).toEqual(buildOpenApiDocument(BASE_URL));
      for (const headers of [{}, { authorization: 'Bearer not-the-token' }]) {
        const refused = await t.app.inject({ method: 'GET', url: `/admin${OPENAPI_DOCUMENT_PATH}`, headers });
        expect(refused.statusCode).toBe(401);
        expect(refused.json()).toMatchObject({ error: 'invalid_token' });
      }
    });

    it('is an OpenAPI 3.1 document: version, info, servers, paths, components, the bearer scheme', () => {
      expect(document.openapi).toMatch(/^3\.1\.\d+$/);
      expect(document.info).toMatchObject({ title: expect.stringMatching(/\S/), version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
      expect(document.servers).toEqual([{ url: BASE_URL }]);
      expect(Object.keys(document.paths).length).toBeGreaterThan(10);
      expect(document.components.securitySchemes.adminToken).toMatchObject({ type: 'http', scheme: 'bearer' });
      expect(document.security).toEqual([{ adminToken: [] }]);
      const tags = new Set(document.tags.map((tag) => tag.name));
      const ids = operations().map(({ operation }) => operation.operationId);
      expect(new Set(ids).size, 'operationIds are unique').toBe(ids.length);
      for (const { method, path, operation } of operations()) {
        const where = `${method} ${path}`;
        expect(path, where).toMatch(/^\/admin\//);
        expect(operation.summary, where).toMatch(/\S/);
        expect(operation.tags.every((tag) => tags.has(tag)), where).toBe(true);
        expect(Object.keys(operation.responses).length, where).toBeGreaterThan(0);
        for (const status of Object.keys(operation.responses)) expect(status, where).toMatch(/^[1-5]\d\d$/);
        // Path templating: each {name} of the path is a required path parameter, and nothing else is.
        const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
        const inPath = (operation.parameters ?? []).filter((parameter) => parameter.in === 'path');
        expect(inPath.map((parameter) => parameter.name).sort(), where).toEqual(templated.sort());
        expect(inPath.every((parameter) => parameter.required), where).toBe(true);
        for (const parameter of operation.parameters ?? []) expect(parameter.schema, `${where} ${parameter.name}`).toBeTypeOf('object');
      }
    });

    it('uses only the formats JSON Schema 2020-12 defines', () => {
      const formats = JSON.stringify(document).matchAll(/"format":"([^"]*)"/g);
      for (const [, format] of formats) expect(STANDARD_FORMATS).toContain(format);
    });

    it('resolves every $ref inside the document, and none points into a schema\'s own $defs', () => {
      const refs = refsIn(document);
      expect(refs.length).toBeGreaterThan(50);
      for (const { at, ref } of refs) {
        expect(ref, at).toMatch(/^#\/components\/(schemas|responses)\//);
        expect(resolvePointer(document, ref), `${at}: ${ref}`).toBeDefined();
      }
      expect(JSON.stringify(document)).not.toContain('$defs');
    });

    it('documents every admin route the router has (and none it does not), with its method and path parameters', async () => {
      await t.app.ready();
      const routes = registeredRoutes(t.app, '/admin').filter(({ path }) => !NOT_OPERATIONS.includes(path) && !isConsole(path));
      expect(routes.length).toBeGreaterThanOrEqual(29);
      const routed = routes.map(({ method, path }) => `${method} ${path.replace(/:([A-Za-z_]+)/g, '{$1}')}`).sort();
      const documented = operations().map(({ method, path }) => `${method} ${path}`).sort();
      expect(documented).toEqual(routed);
      // The document's own routes are there, and left out of it on purpose.
      const all = registeredRoutes(t.app, '/admin').map(({ method, path }) => `${method} ${path}`);
      for (const path of NOT_OPERATIONS) expect(all).toContain(`GET ${path}`);
    });

    it('shows the events API\'s query parameters, and the body schema of every route that reads one', () => {
      const events = operationById('listEvents').operation;
      const query = (events.parameters ?? []).filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name);
      expect(query.sort()).toEqual(['before', 'client_id', 'limit', 'since', 'type', 'until', 'user_id', 'username']);
      const withBody = operations().filter(({ operation }) => operation.requestBody).map(({ method, path }) => `${method} ${path}`);
      expect(withBody.sort()).toEqual(
        [
          'POST /admin/realms', 'PATCH /admin/realms/{realm}', 'POST /admin/realms/{realm}/clients', 'PATCH /admin/realms/{realm}/clients/{client_id}',
          'POST /admin/realms/{realm}/users', 'PATCH /admin/realms/{realm}/users/{username}', 'PUT /admin/realms/{realm}/scopes/{name}',
          'POST /admin/realms/{realm}/initial-access-tokens', 'POST /admin/realms/{realm}/trusted-issuers', 'PATCH /admin/realms/{realm}/trusted-issuers/{id}',
          'PUT /admin/realms/{realm}/journeys/{journey}', 'PUT /admin/realms/{realm}/import',
          'POST /admin/realms/{realm}/identity-providers', 'PATCH /admin/realms/{realm}/identity-providers/{alias}',
          'PUT /admin/realms/{realm}/roles/{role}', 'PUT /admin/realms/{realm}/groups/{group}', 'PUT /admin/realms/{realm}/resources',
          'POST /admin/realms/{realm}/users/{username}/send-reset', 'POST /admin/realms/{realm}/users/{username}/send-verification',
          'PUT /admin/realms/{realm}/webhooks/{webhook}',
          'PUT /admin/realms/{realm}/texts/{locale}',
        ].sort(),
      );
      // The request schemas are the input side of the routes' zod schemas: strict objects, with their rules.
      const realmCreate = document.components.schemas.RealmCreate as Json;
      expect(realmCreate).toMatchObject({ type: 'object', required: ['name'], additionalProperties: false });
      expect((document.components.schemas.ClientCreate as { properties: Json }).properties.client_id).toMatchObject({ pattern: expect.any(String) });
      expect((document.components.schemas.UserCreate as { properties: Json }).properties.password).toMatchObject({ type: 'string', maxLength: 1024 });
    });

    it('names the error shape {error, error_description}, its statuses, and the Bearer challenge of 401', () => {
      expect(document.components.schemas.Error).toMatchObject({ type: 'object', required: ['error', 'error_description'], additionalProperties: false });
      expect(resolved({ $ref: '#/components/responses/Unauthorized' }).headers).toHaveProperty('WWW-Authenticate');
      for (const { method, path, operation } of operations()) {
        const statuses = Object.keys(operation.responses);
        expect(statuses, `${method} ${path}`).toContain('401');
        if (path.includes('{')) expect(statuses, `${method} ${path}`).toContain('404');
        if (operation.requestBody) expect(statuses, `${method} ${path}`).toEqual(expect.arrayContaining(['400', '413', '415']));
        for (const status of statuses.filter((code) => Number(code) >= 400)) {
          const content = resolved(operation.responses[status]!).content?.['application/json'];
          expect(content?.schema, `${method} ${path} ${status}`).toEqual({ $ref: '#/components/schemas/Error' });
        }
      }
    });
  });

  describe('real calls, built from the document, answered as it says', () => {
    const exercised = new Set<string>();
    const values: Record<string, string> = {};

    /**
     * The call an operation describes: its path parameters from the document's examples (or
     * `params`), its body its example (or `body`), its query the examples of its query
     * parameters when `query` is `examples`.
     */
    async function call(operationId: string, options: { params?: Record<string, string>; body?: unknown; query?: string } = {}) {
      const { method, path, operation } = operationById(operationId);
      const parameters = operation.parameters ?? [];
      const url = path.replace(/\{([^}]+)\}/g, (_, name: string) => {
        const value = options.params?.[name] ?? values[name] ?? parameters.find((parameter: ParameterObject) => parameter.name === name)?.example;
        if (value === undefined) throw new Error(`no value for ${name}`);
        return encodeURIComponent(value);
      });
      const examples = parameters.filter((parameter) => parameter.in === 'query' && parameter.example !== undefined);
      const query = options.query === 'examples' ? examples.map((parameter) => `${parameter.name}=${encodeURIComponent(parameter.example!)}`).join('&') : options.query;
      const media = operation.requestBody?.content['application/json'];
      const body = options.body ?? media?.example;
      if (media && body !== undefined) {
        expect(problems(media.schema as Json, body, document), `${operationId}: the body sent fits the document`).toEqual([]);
      }
      const response = await t.app.inject({
        method,
        url: `${url}${query ? `?${query}` : ''}`,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        ...(body === undefined ? {} : { payload: body as object }),
      });
      return { response, operation };
    }

    /** Checks an answer against the document (JSON Schema) and the zod schema it was built from. */
    function expectDocumented(operationId: string, response: LightMyRequestResponse, operation: OperationObject) {
      const where = `${operationId}: ${response.statusCode} ${response.body.slice(0, 300)}`;
      expect(Object.keys(operation.responses), where).toContain(String(response.statusCode));
      exercised.add(operationId);
      const documented = resolved(operation.responses[String(response.statusCode)]!);
      for (const [header, { schema }] of Object.entries(documented.headers ?? {})) {
        expect(problems(schema as Json, response.headers[header.toLowerCase()], document), `${where}: header ${header}`).toEqual([]);
      }
      const schema = documented.content?.['application/json']?.schema;
      if (!schema) {
        expect(response.body, where).toBe('');
        return undefined;
      }
      expect(response.headers['content-type'], where).toMatch(/^application\/json/);
      const body = response.json() as unknown;
      expect(problems(schema as Json, body, document), where).toEqual([]);
      if (response.statusCode < 300) {
        const source = OPERATIONS.find((candidate) => candidate.operationId === operationId)!;
        const zod = responseSchemaOf(source.responses[response.statusCode as 200]!);
        const parsed = zod?.safeParse(body);
        expect(parsed?.success, `${where}: ${JSON.stringify(parsed?.error?.issues)}`).toBe(true);
      }
      return body;
    }

    /** A call that must succeed; its answer (an object, or `{}` for none). */
    async function step(operationId: string, options: Parameters<typeof call>[1] = {}): Promise<Json> {
      const { response, operation } = await call(operationId, options);
      expect(response.statusCode, `${operationId}: ${response.body.slice(0, 300)}`).toBeLessThan(300);
      return (expectDocumented(operationId, response, operation) ?? {}) as Json;
    }

    it('walks every operation of the document with its examples: each succeeds with a documented status and answer', async () => {
      const realm = await step('createRealm');
      expect(realm.name).toBe(operationById('getRealm').operation.parameters?.[0]?.example);
      await step('listRealms');
      await step('getRealm');
      expect((await step('updateRealm')).settings).toMatchObject({ require_pkce: true });

      const created = await call('putScope');
      expect(created.response.statusCode).toBe(201);
      expectDocumented('putScope', created.response, created.operation);
      const changed = await call('putScope', { body: { description: 'Read the orders' } });
      expect(changed.response.statusCode).toBe(200);
      expectDocumented('putScope', changed.response, changed.operation);
      await step('listScopes');
      await step('getScope');

      // A resource lists the scope just made (the example's).
      const registered = await call('putResource');
      expect(registered.response.statusCode).toBe(201);
      expectDocumented('putResource', registered.response, registered.operation);
      const renamed = await call('putResource', { body: { identifier: 'https://orders.example.com/api', name: 'Orders' } });
      expect(renamed.response.statusCode).toBe(200);
      expect(expectDocumented('putResource', renamed.response, renamed.operation)).toEqual({ identifier: 'https://orders.example.com/api', name: 'Orders', scopes: ['orders:read'] });
      expect(await step('getResources')).toEqual([{ identifier: 'https://orders.example.com/api', name: 'Orders', scopes: ['orders:read'] }]);
      expect((await step('getResources', { query: 'examples' })).identifier).toBe('https://orders.example.com/api');

      const client = await step('createClient');
      expect(client.client_secret).toEqual(expect.any(String));
      await step('listClients');
      const read = await step('getClient');
      expect(read).not.toHaveProperty('client_secret');
      await step('updateClient');
      await step('rotateClientSecret');

      await step('createUser');
      await step('getUser');
      await step('updateUser');
      expect(((await step('listUsers')).users as Json[]).map((user) => user.username)).toEqual(['alice']);
      expect((await step('listUsers', { query: 'examples' })).users).toEqual([]);
      expect((await step('listUserSessions')).sessions).toEqual([]);
      await step('endUserSessions');
      await step('enrolTotp');
      await step('removeUserTotp');
      expect((await step('listUserPasskeys')).passkeys).toEqual([]);
      expect((await step('listUserConsents')).consents).toEqual([]);
      for (const [operationId, status] of [['deleteUserPasskey', 404], ['revokeUserConsent', 404], ['sendPasswordReset', 409], ['sendEmailVerification', 409]] as const) {
        // Nothing to delete, and no SMTP_URL here (the mails: test/admin/operator-actions.test.ts).
        const refused = await call(operationId);
        expect(refused.response.statusCode, `${operationId}: ${refused.response.body}`).toBe(status);
        expectDocumented(operationId, refused.response, refused.operation);
      }
      // The example's host is not resolved here: a loopback receiver, which OUTBOUND_ALLOW lists for this app.
      const hook = { url: 'http://127.0.0.1:9/realmgate', events: ['user.created'], secret: 'a long random secret of the receiver' };
      const savedHook = await call('putWebhook', { body: hook });
      expect(savedHook.response.statusCode, savedHook.response.body).toBe(201);
      expect(expectDocumented('putWebhook', savedHook.response, savedHook.operation), 'the secret is write-only').not.toHaveProperty('secret');
      const replacedHook = await call('putWebhook', { body: hook });
      expect(replacedHook.response.statusCode).toBe(200);
      expectDocumented('putWebhook', replacedHook.response, replacedHook.operation);
      await step('getWebhook');
      expect(((await step('listWebhooks')).webhooks as Json[]).map((entry) => entry.name)).toEqual(['siem']);
      await step('deleteWebhook');
      expect(await step('putTexts')).toEqual({ 'signIn.titles.password': 'Willkommen zurück', 'mail.passwordReset.subject': 'Neues Passwort für {0}' });
      expect(Object.keys(await step('getTexts'))).toHaveLength(2);
      expect((await step('getTextCatalogue')).plural_categories).toEqual(['one', 'other']);
      await step('deleteTexts');

      await step('listKeys');
      await step('rotateKeys');
      const keys = await step('listKeys');
      expect((keys.keys as Json[]).some((key) => key.retired_at !== undefined), 'a retired key is documented too').toBe(true);

      const token = await step('createInitialAccessToken');
      const lifetime = (await step('createInitialAccessToken', { body: {} })).expires_in as number;
      expect(token.expires_in).toBe(3600);
      expect(operationById('createInitialAccessToken').operation.description, 'the documented default').toContain(String(lifetime));

      const issuer = await step('createTrustedIssuer');
      values.id = issuer.id as string;
      await step('listTrustedIssuers');
      await step('getTrustedIssuer');
      await step('updateTrustedIssuer');

      const stored = await call('putJourney');
      expect(stored.response.statusCode).toBe(201);
      expectDocumented('putJourney', stored.response, stored.operation);
      const replaced = await call('putJourney');
      expect(replaced.response.statusCode).toBe(200);
      expectDocumented('putJourney', replaced.response, replaced.operation);
      const journeys = await step('listJourneys');
      expect((journeys.journeys as Json[]).map((entry) => entry.name)).toEqual(['default', values.journey ?? 'strong']);
      expect(await step('getJourney')).toEqual(operationById('putJourney').operation.requestBody?.content['application/json']?.example);
      await step('deleteJourney');

      const provider = await step('createIdentityProvider');
      expect(provider, 'the client secret is write-only').not.toHaveProperty('client_secret');
      await step('listIdentityProviders');
      await step('getIdentityProvider');
      await step('updateIdentityProvider');
      await step('deleteIdentityProvider');

      const role = await call('putRole');
      expect(role.response.statusCode).toBe(201);
      expectDocumented('putRole', role.response, role.operation);
      await step('listRoles');
      await step('getRole');
      expect((await step('putGroup')).roles).toEqual(['invoice-approver']);
      await step('listGroups');
      await step('getGroup');
      await step('grantRole');
      await step('joinGroup');
      expect(await step('getUser')).toMatchObject({ roles: ['invoice-approver'], groups: ['accounting'], effective_roles: ['invoice-approver'] });
      await step('revokeRole');
      await step('leaveGroup');
      await step('deleteGroup');
      await step('deleteRole');

      const page = await step('listEvents', { query: 'examples' });
      expect((page.events as Json[]).map((event) => event.type)).toEqual(['client.created']);
      expect(((await step('listEvents')).events as Json[]).length).toBeGreaterThan(5);

      await step('deleteTrustedIssuer');
      await step('deleteClient');
      await step('deleteResource', { query: 'examples' });
      await step('deleteScope');
      await step('deleteUser');

      const exported = await step('exportRealm', { query: 'examples' });
      expect(exported.realm).toBe(operationById('getRealm').operation.parameters?.[0]?.example);
      expect((await step('importRealm')).realm_created).toBe(false);
      const copy = await call('importRealm', { params: { realm: 'copy-of-it' }, body: exported });
      expect(copy.response.statusCode).toBe(201);
      expectDocumented('importRealm', copy.response, copy.operation);

      // ADMIN_TOKEN may do everything (the decisions for roles: test/admin/console-client.test.ts).
      expect((await step('getRealmPermissions')).operations).toMatchObject({ deleteRealm: { allowed: true }, getRealmPermissions: { allowed: true } });
      await step('deleteRealm');

      expect([...exercised].sort()).toEqual(operations().map(({ operation }) => operation.operationId).sort());
    });

    it('answers the documented refusals in the documented shape: 400, 401, 404, 409, 413, 415', async () => {
      const answers: Record<number, LightMyRequestResponse> = {};
      const { operation } = operationById('createRealm');
      const send = (payload: string, headers: Record<string, string> = {}) =>
        t.app.inject({ method: 'POST', url: '/admin/realms', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', ...headers }, payload });

      // A field the document's strict schema does not have is refused by the route as well.
      const unknownField = { name: 'refusals', colour: 'blue' };
      expect(problems({ $ref: '#/components/schemas/RealmCreate' }, unknownField, document)).toEqual(['$.colour: not a documented field']);
      answers[400] = await send(JSON.stringify(unknownField));
      answers[401] = await send('{"name":"refusals"}', { authorization: 'Bearer wrong' });
      answers[409] = await send('{"name":"root"}');
      answers[413] = await send(JSON.stringify({ name: 'refusals', settings: {}, padding: 'x'.repeat(300 * 1024) }));
      answers[415] = await send('name=refusals', { 'content-type': 'text/plain' });
      for (const [status, response] of Object.entries(answers)) {
        expect(response.statusCode, response.body).toBe(Number(status));
        expectDocumented('createRealm', response, operation);
      }
      const missing = await call('getRealm', { params: { realm: 'no-such-realm' } });
      expect(missing.response.statusCode).toBe(404);
      expectDocumented('getRealm', missing.response, missing.operation);
      const badQuery = await call('listEvents', { params: { realm: 'root' }, query: 'limit=many' });
      expect(badQuery.response.statusCode).toBe(400);
      expectDocumented('listEvents', badQuery.response, badQuery.operation);
    });
  });

  describe('GET /admin/reference', () => {
    let page: LightMyRequestResponse;
    beforeAll(async () => {
      page = await t.admin.request('GET', REFERENCE_PAGE_PATH);
    });

    it('is an HTML page behind the admin token, that loads nothing and runs nothing', async () => {
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.body.startsWith('<!doctype html>')).toBe(true);
      expect(page.headers['cache-control']).toMatch(/no-store/);
      expect(page.headers['x-frame-options']).toBe('DENY');
      const csp = String(page.headers['content-security-policy']);
      expect(csp).toMatch(/default-src 'none'/);
      expect(csp).not.toMatch(/script-src/);
      // Its one stylesheet is the one the policy allows.
      const style = /<style>([\s\S]*?)<\/style>/.exec(page.body)?.[1] ?? '';
      expect(csp).toContain(`'sha256-${createHash('sha256').update(style).digest('base64')}'`);
      expect(page.body).not.toMatch(/<script|<link|<img|<iframe|\ssrc=/i);
      const refused = await t.app.inject({ method: 'GET', url: `/admin${REFERENCE_PAGE_PATH}` });
      expect(refused.statusCode).toBe(401);
    });

    it('shows every operation of the document, by method and path, and every schema, its links all leading somewhere', () => {
      for (const { method, path, operation } of operations()) {
        expect(page.body, `${method} ${path}`).toContain(`<span class="method">${method}</span> <code>${escapeHtml(path)}</code>`);
        expect(page.body).toContain(`id="op-${operation.operationId}"`);
        expect(page.body).toContain(escapeHtml(operation.summary));
      }
      for (const name of Object.keys(document.components.schemas)) expect(page.body).toContain(`id="schema-${name}"`);
      const ids = new Set([...page.body.matchAll(/ id="([^"]+)"/g)].map((match) => match[1]));
      const targets = [...page.body.matchAll(/href="#([^"]+)"/g)].map((match) => match[1]);
      expect(targets.length).toBeGreaterThan(50);
      for (const target of targets) expect(ids.has(target), target).toBe(true);
    });

    it('escapes every text it takes from the document', () => {
      const hostile = '<script>alert(1)</script>"\'><img src=x onerror=alert(1)>&amp;';
      const crafted = structuredClone(buildOpenApiDocument(BASE_URL)) as OpenApiDocument;
      crafted.info.title = hostile;
      crafted.info.description = `${hostile} \`${hostile}\``;
      crafted.servers = [{ url: hostile }];
      crafted.tags[0]!.description = hostile;
      const operation = crafted.paths['/admin/realms']!.post!;
      operation.summary = hostile;
      operation.description = hostile;
      operation.operationId = hostile;
      operation.requestBody!.content['application/json']!.example = { name: hostile };
      crafted.paths[`/admin/${hostile}`] = { get: { ...crafted.paths['/admin/realms']!.get!, operationId: 'x', summary: 'x' } };
      const realm = crafted.components.schemas.Realm as { properties: Record<string, Json> };
      realm.properties[hostile] = { type: 'string', description: hostile, pattern: hostile, enum: [hostile], default: hostile };
      crafted.components.schemas[hostile] = { type: 'string', title: hostile };
      (crafted.components.schemas.RealmCreate as Json).$ref = `#/components/schemas/${hostile}`;

      const html = renderReferencePage(crafted).value;
      expect(html).not.toContain('<script>');
      expect(html).not.toContain('<img');
      expect(html).not.toContain(`"'>`);
      expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&gt;&lt;img src=x onerror=alert(1)&gt;&amp;amp;');
      expect(html).toContain(escapeHtml(`/admin/${hostile}`));
    });
  });
});
