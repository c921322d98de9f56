import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { TestBrowser } from '../support/flow.js';
import { Upstream, addProvider, appClient, callbackOf, signInThrough } from './support.js';

/**
 * Sign-in through another OpenID provider (CONTRACT.md §10), node-oidc-provider as the
 * upstream on a loopback port: the first sign-in of an upstream account makes its person, the
 * next ones find the link, and an existing person is linked by a verified email only when the
 * provider allows it.
 */
const REALMS = ['jit', 'taken', 'by-email', 'no-email-link', 'unverified'] as const;

let t: TestApp;
let upstream: Upstream;

beforeAll(async () => {
  upstream = await Upstream.start(REALMS.map((realm) => callbackOf(realm, 'up')));
  t = await startTestApp({ outboundAllow: ['127.0.0.1'] });
  for (const realm of REALMS) await t.admin.createRealm(realm);
});

afterAll(async () => {
  await t?.close();
  await upstream?.close();
});

const userOf = async (realm: string, username: string) => {
  const response = await t.admin.request('GET', `/realms/${realm}/users/${encodeURIComponent(username)}`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { sub: string; username: string; claims: Record<string, unknown>; identities: Array<{ provider: string; subject: string }> };
};

const eventsOf = async (realm: string, type: string) => {
  const response = await t.admin.request('GET', `/realms/${realm}/events?type=${type}`);
  return (response.json() as { events: Array<{ user_id: string; details: Record<string, unknown> }> }).events;
};

describe('a first sign-in through the provider', () => {
  it('makes the person just in time, and the ID token says the sign-in was federated', async () => {
    await addProvider(t, 'jit', upstream.issuer);
    const clientId = await appClient(t, 'jit');
    upstream.accounts.set('up-1', { preferred_username: 'ada', email: 'ada@corp.example', email_verified: true, name: 'Ada Lovelace' });

    const idToken = await signInThrough(t, upstream, 'jit', clientId, 'up-1', new TestBrowser(t.app, t.baseUrl));
    expect(idToken.amr).toContain('fed');
    expect(idToken.amr).not.toContain('pwd');
    expect(idToken.preferred_username).toBe('ada');

    const ada = await userOf('jit', 'ada');
    expect(ada.sub).toBe(idToken.sub);
    expect(ada.claims).toEqual({ email: 'ada@corp.example', email_verified: true, name: 'Ada Lovelace' });
    expect(ada.identities).toEqual([{ provider: 'up', subject: 'up-1' }]);
    const linked = await eventsOf('jit', 'identity.linked');
    expect(linked).toEqual([expect.objectContaining({ user_id: ada.sub, details: expect.objectContaining({ provider: 'up', subject: 'up-1', how: 'created' }) })]);
    const signIns = await eventsOf('jit', 'sign_in.succeeded');
    expect(signIns[0]).toEqual(expect.objectContaining({ user_id: ada.sub, details: expect.objectContaining({ amr: ['fed'] }) }));
  });

  it('signs a returning upstream account in as the person linked to it', async () => {
    const clientId = await appClient(t, 'jit');
    const first = await userOf('jit', 'ada');
    const idToken = await signInThrough(t, upstream, 'jit', clientId, 'up-1', new TestBrowser(t.app, t.baseUrl));
    expect(idToken.sub).toBe(first.sub);
    expect((await eventsOf('jit', 'identity.linked')).length).toBe(1);
  });

  it('gives a new person whose username is taken a suffix', async () => {
    await addProvider(t, 'taken', upstream.issuer);
    const clientId = await appClient(t, 'taken');
    await t.admin.request('POST', '/realms/taken/users', { username: 'grace', password: 'correct horse battery' });
    upstream.accounts.set('up-grace', { preferred_username: 'Grace', email: 'grace@corp.example', email_verified: true });

    const idToken = await signInThrough(t, upstream, 'taken', clientId, 'up-grace', new TestBrowser(t.app, t.baseUrl));
    const made = await userOf('taken', 'grace-2');
    expect(made.sub).toBe(idToken.sub);
    expect(made.identities).toEqual([{ provider: 'up', subject: 'up-grace' }]);
  });
});

describe('linking by a verified email', () => {
  const alan = { preferred_username: 'alan-upstream', email: 'alan@corp.example', email_verified: true };

  it('links the person with that email when the provider allows it', async () => {
    await addProvider(t, 'by-email', upstream.issuer, { link_by_verified_email: true });
    const clientId = await appClient(t, 'by-email');
    await t.admin.request('POST', '/realms/by-email/users', { username: 'alan', password: 'correct horse battery', claims: { email: 'Alan@corp.example' } });
    upstream.accounts.set('up-alan', alan);

    const idToken = await signInThrough(t, upstream, 'by-email', clientId, 'up-alan', new TestBrowser(t.app, t.baseUrl));
    const person = await userOf('by-email', 'alan');
    expect(idToken.sub).toBe(person.sub);
    expect(person.identities).toEqual([{ provider: 'up', subject: 'up-alan' }]);
    expect((await t.admin.request('GET', '/realms/by-email/users/alan-upstream')).statusCode).toBe(404);
    expect((await eventsOf('by-email', 'identity.linked'))[0]?.details).toEqual(expect.objectContaining({ how: 'verified_email' }));
  });

  it('makes a new person when the provider does not allow it', async () => {
    await addProvider(t, 'no-email-link', upstream.issuer);
    const clientId = await appClient(t, 'no-email-link');
    await t.admin.request('POST', '/realms/no-email-link/users', { username: 'alan', password: 'correct horse battery', claims: { email: 'alan@corp.example' } });

    const idToken = await signInThrough(t, upstream, 'no-email-link', clientId, 'up-alan', new TestBrowser(t.app, t.baseUrl));
    expect(idToken.sub).not.toBe((await userOf('no-email-link', 'alan')).sub);
    expect((await userOf('no-email-link', 'alan-upstream')).sub).toBe(idToken.sub);
    expect((await userOf('no-email-link', 'alan')).identities).toEqual([]);
    // The address is Alan's (one person's per realm): the new person is made without it.
    expect((await userOf('no-email-link', 'alan-upstream')).claims.email).toBeUndefined();
    expect((await userOf('no-email-link', 'alan')).claims.email).toBe('alan@corp.example');
  });

  it('makes a new person when the upstream does not say the email is verified', async () => {
    await addProvider(t, 'unverified', upstream.issuer, { link_by_verified_email: true });
    const clientId = await appClient(t, 'unverified');
    await t.admin.request('POST', '/realms/unverified/users', { username: 'alan', password: 'correct horse battery', claims: { email: 'alan@corp.example' } });
    upstream.accounts.set('up-alan-unverified', { ...alan, email_verified: false });

    const idToken = await signInThrough(t, upstream, 'unverified', clientId, 'up-alan-unverified', new TestBrowser(t.app, t.baseUrl));
    expect(idToken.sub).not.toBe((await userOf('unverified', 'alan')).sub);
    // Without the address, which is Alan's, nor what the upstream said of it.
    const made = await userOf('unverified', 'alan-upstream');
    expect(made.claims.email).toBeUndefined();
    expect(made.claims.email_verified).toBeUndefined();
  });
});
