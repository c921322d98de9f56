import type { FastifyInstance } from 'fastify';
import { Secret, TOTP, URI } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { createUser } from '../support/users.js';
import { expectAdminError } from './helpers.js';

interface Enrolment {
  secret: string;
  otpauth_uri: string;
}

describe('admin API: POST /admin/realms/{realm}/users/{username}/totp', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm('alpha');
    await createUser(t.admin, 'alpha', 'alice');
    await createUser(t.admin, 'alpha', 'bob');
    await createUser(t.admin, 'root', 'carol');
  });
  afterAll(() => t.close());

  const enrol = (username: string, realm = 'alpha') => t.admin.request('POST', `/realms/${realm}/users/${encodeURIComponent(username)}/totp`);
  const storedRow = async (username: string, realm = 'alpha') =>
    (
      await t.store.db.query<{ secret_encrypted: Uint8Array; confirmed_at: Date | null; last_step: string | null }>(
        `SELECT secret_encrypted, confirmed_at, last_step::text FROM user_totp
          WHERE realm = $1 AND user_id = (SELECT id FROM users WHERE realm = $1 AND username = $2)`,
        [realm, username],
      )
    ).rows;

  it('answers 201 {secret, otpauth_uri}: a 160-bit base32 secret and the Key URI an authenticator app scans', async () => {
    const response = await enrol('alice');
    expect(response.statusCode, response.body).toBe(201);
    expect(response.headers['cache-control']).toBe('no-store');
    const body = response.json() as Enrolment;
    expect(Object.keys(body).sort()).toEqual(['otpauth_uri', 'secret']);
    expect(body.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(Secret.fromBase32(body.secret).bytes).toHaveLength(20);

    const uri = new URL(body.otpauth_uri);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe('/auth.test alpha:alice');
    expect(Object.fromEntries(uri.searchParams)).toEqual({ secret: body.secret, issuer: 'auth.test alpha', algorithm: 'SHA1', digits: '6', period: '30' });

    const parsed = URI.parse(body.otpauth_uri);
    expect(parsed).toBeInstanceOf(TOTP);
    expect(parsed.secret.base32).toBe(body.secret);
  });

  it('names the host alone as the issuer of the root realm', async () => {
    const body = (await enrol('carol', 'root')).json() as Enrolment;
    expect(new URL(body.otpauth_uri).searchParams.get('issuer')).toBe('auth.test');
  });

  it('stores the secret encrypted, confirmed at once, and replaces it on a new enrolment', async () => {
    const first = (await enrol('bob')).json() as Enrolment;
    const [row] = await storedRow('bob');
    expect(row?.confirmed_at).toBeInstanceOf(Date);
    const sealed = Buffer.from(row!.secret_encrypted);
    expect(sealed.includes(Buffer.from(Secret.fromBase32(first.secret).bytes))).toBe(false);
    expect(sealed.toString('latin1')).not.toContain(first.secret);

    await t.store.db.query(`UPDATE user_totp SET last_step = 1 WHERE realm = 'alpha'`);
    const second = (await enrol('BOB')).json() as Enrolment;
    expect(second.secret).not.toBe(first.secret);
    const rows = await storedRow('bob');
    expect(rows).toHaveLength(1);
    expect(Buffer.from(rows[0]!.secret_encrypted).equals(sealed)).toBe(false);
    expect(rows[0]!.last_step).toBeNull();
  });

  it('answers 404 for an unknown user or realm, and 401 without the admin token', async () => {
    expectAdminError(await enrol('nobody'), 404, 'not_found');
    expectAdminError(await enrol('alice', 'no-such-realm'), 404, 'not_found');
    expectAdminError(await enrol('alice', 'root'), 404, 'not_found');
    const anonymous = await (t.app as FastifyInstance).inject({ method: 'POST', url: '/admin/realms/alpha/users/alice/totp' });
    expectAdminError(anonymous, 401, 'invalid_token');
  });
});
