import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { freshRealm } from '../support/flow-helpers.js';
import { keyPair } from '../support/keys.js';

/** A self-signed certificate made by openssl, as an identity provider signs SAML assertions with. */
function selfSignedCertificate(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rg-cert-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=idp.example'], { stdio: 'ignore' });
    return readFileSync(join(dir, 'cert.pem'), 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('admin API: trusted issuers', () => {
  let t: TestApp;
  let realm: string;
  let certificate: string;
  let jwk: Record<string, unknown>;

  beforeAll(async () => {
    t = await startTestApp();
    realm = await freshRealm(t);
    certificate = selfSignedCertificate();
    jwk = (await keyPair('ES256')).publicJwk as Record<string, unknown>;
  });
  afterAll(async () => {
    await t.close();
  });

  const post = (body: unknown) => t.admin.request('POST', `/realms/${realm}/trusted-issuers`, body);

  function expectInvalid(response: { statusCode: number; json(): unknown }, mentions: string) {
    expect(response.statusCode).toBe(400);
    const body = response.json() as { error: string; error_description: string };
    expect(body.error).toBe('invalid_request');
    expect(body.error_description).toContain(mentions);
  }

  it('creates a jwt issuer with inline keys, subject mapped by username unless told otherwise', async () => {
    const created = await post({ kind: 'jwt', issuer: 'https://idp.example', jwks: { keys: [jwk] } });
    expect(created.statusCode).toBe(201);
    const body = created.json() as Record<string, unknown>;
    expect(body).toMatchObject({ kind: 'jwt', issuer: 'https://idp.example', jwks: { keys: [jwk] }, subject_mapping: 'username' });
    expect(body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.client_ids).toBeUndefined();

    const read = await t.admin.request('GET', `/realms/${realm}/trusted-issuers/${body.id as string}`);
    expect(read.json()).toEqual(body);
    const list = await t.admin.request('GET', `/realms/${realm}/trusted-issuers`);
    expect((list.json() as unknown[]).map((issuer) => (issuer as { id: string }).id)).toContain(body.id);
  });

  it('creates a jwt issuer known by its jwks_uri, and a saml2 issuer by its certificate', async () => {
    const byUri = await post({ kind: 'jwt', issuer: 'https://uri.example', jwks_uri: 'https://uri.example/jwks', subject_mapping: 'email', client_ids: ['a', 'b'] });
    expect(byUri.statusCode).toBe(201);
    expect(byUri.json()).toMatchObject({ jwks_uri: 'https://uri.example/jwks', subject_mapping: 'email', client_ids: ['a', 'b'] });
    const saml = await post({ kind: 'saml2', issuer: 'https://saml.example/idp', certificate_pem: certificate });
    expect(saml.statusCode).toBe(201);
    expect((saml.json() as { certificate_pem: string }).certificate_pem).toContain('-----BEGIN CERTIFICATE-----');
  });

  it('refuses records that do not hold together', async () => {
    expectInvalid(await post({ kind: 'jwt', issuer: 'https://x.example' }), 'jwks');
    expectInvalid(await post({ kind: 'jwt', issuer: 'https://x.example', jwks: { keys: [jwk] }, jwks_uri: 'https://x.example/k' }), 'jwks');
    expectInvalid(await post({ kind: 'jwt', issuer: 'https://x.example', jwks: { keys: [jwk] }, certificate_pem: certificate }), 'certificate_pem');
    expectInvalid(await post({ kind: 'saml2', issuer: 'https://x.example' }), 'certificate_pem');
    expectInvalid(await post({ kind: 'saml2', issuer: 'https://x.example', certificate_pem: 'not a certificate' }), 'certificate_pem');
    expectInvalid(await post({ kind: 'saml2', issuer: 'https://x.example', certificate_pem: certificate, jwks: { keys: [jwk] } }), 'jwks');
    expectInvalid(await post({ kind: 'jwt', issuer: 'https://x.example', jwks_uri: 'http://x.example/k' }), 'jwks_uri');
    expectInvalid(await post({ kind: 'jwt', issuer: 'https://x.example', jwks: { keys: [{ ...jwk, d: 'secret' }] } }), 'jwks');
    expectInvalid(await post({ kind: 'oidc', issuer: 'https://x.example' }), 'kind');
    expectInvalid(await post({ kind: 'jwt', issuer: '', jwks: { keys: [jwk] } }), 'issuer');
    expectInvalid(await post({ kind: 'jwt', issuer: 'https://x.example', jwks: { keys: [jwk] }, subject_mapping: 'phone' }), 'subject_mapping');
    expectInvalid(await post({ kind: 'jwt', issuer: 'https://x.example', jwks: { keys: [jwk] }, extra: true }), 'extra');
    const list = await t.admin.request('GET', `/realms/${realm}/trusted-issuers`);
    expect((list.json() as Array<{ issuer: string }>).some((issuer) => issuer.issuer === 'https://x.example')).toBe(false);
  });

  it('answers 409 for the same issuer and kind twice, and allows the other kind', async () => {
    expect((await post({ kind: 'jwt', issuer: 'https://twice.example', jwks: { keys: [jwk] } })).statusCode).toBe(201);
    const again = await post({ kind: 'jwt', issuer: 'https://twice.example', jwks: { keys: [jwk] } });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ error: 'conflict' });
    expect((await post({ kind: 'saml2', issuer: 'https://twice.example', certificate_pem: certificate })).statusCode).toBe(201);
  });

  it('PATCH merges, null clears client_ids and switches inline keys for a jwks_uri; the result must still hold together', async () => {
    const created = (await post({ kind: 'jwt', issuer: 'https://patch.example', jwks: { keys: [jwk] }, client_ids: ['one'] })).json() as { id: string };
    const url = `/realms/${realm}/trusted-issuers/${created.id}`;
    const cleared = await t.admin.request('PATCH', url, { client_ids: null, subject_mapping: 'id' });
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json()).toMatchObject({ subject_mapping: 'id', jwks: { keys: [jwk] } });
    expect((cleared.json() as { client_ids?: unknown }).client_ids).toBeUndefined();
    expectInvalid(await t.admin.request('PATCH', url, { jwks_uri: 'https://patch.example/keys' }), 'jwks');
    const switched = await t.admin.request('PATCH', url, { jwks: null, jwks_uri: 'https://patch.example/keys' });
    expect(switched.statusCode).toBe(200);
    expect((switched.json() as { jwks?: unknown }).jwks).toBeUndefined();
    expectInvalid(await t.admin.request('PATCH', url, { kind: 'saml2' }), 'kind');
  });

  it('DELETE removes it; unknown and malformed ids are 404; another realm does not see it', async () => {
    const created = (await post({ kind: 'jwt', issuer: 'https://gone.example', jwks: { keys: [jwk] } })).json() as { id: string };
    const other = await freshRealm(t);
    expect((await t.admin.request('GET', `/realms/${other}/trusted-issuers/${created.id}`)).statusCode).toBe(404);
    expect((await t.admin.request('DELETE', `/realms/${other}/trusted-issuers/${created.id}`)).statusCode).toBe(404);
    expect((await t.admin.request('DELETE', `/realms/${realm}/trusted-issuers/${created.id}`)).statusCode).toBe(204);
    expect((await t.admin.request('GET', `/realms/${realm}/trusted-issuers/${created.id}`)).statusCode).toBe(404);
    expect((await t.admin.request('GET', `/realms/${realm}/trusted-issuers/not-a-uuid`)).statusCode).toBe(404);
  });

  it('requires the admin token', async () => {
    const response = await t.app.inject({ method: 'GET', url: `/admin/realms/${realm}/trusted-issuers` });
    expect(response.statusCode).toBe(401);
  });
});
