import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { issuerOf, redirectPath } from '../support/flow-helpers.js';
import { TestBrowser, hiddenInputs, location, unescape } from '../support/flow.js';
import { realmPath } from '../support/oauth.js';
import { type TestUser, createUser } from '../support/users.js';
import { Upstream, addProvider, callbackOf } from '../identity-providers/support.js';

/**
 * The account page's linked accounts (CONTRACT.md §10): the person's accounts at the realm's
 * upstream providers, by the provider's name and when each was linked, and unlinking one:
 * a change of how the person signs in (re-authentication first), refused while it is their
 * only way to sign in, and only ever of their own links. node-oidc-provider is the upstream.
 */
const REALM = 'linked';
const PLAIN_REALM = 'plain';
const ISSUER = issuerOf(REALM);
const ACCOUNT = `${ISSUER}/account`;
const UNLINK = `${ACCOUNT}/identities/unlink`;
const ONLY_WAY = 'It cannot be unlinked: it is your only way to sign in, as you have no password, passkey or other linked account.';

let t: TestApp;
let upstream: Upstream;

beforeAll(async () => {
  upstream = await Upstream.start([callbackOf(REALM, 'up'), callbackOf(REALM, 'second')]);
  t = await startTestApp({ outboundAllow: ['127.0.0.1'] });
  await t.admin.createRealm(REALM);
  await t.admin.createRealm(PLAIN_REALM);
  await addProvider(t, REALM, upstream.issuer);
  // No display name: the page names it by its alias.
  await addProvider(t, REALM, upstream.issuer, { display_name: undefined }, 'second');
});

afterAll(async () => {
  await t?.close();
  await upstream?.close();
});

const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

/** An upstream account of its own for a test, with a username the realm turns into its person's. */
function upstreamAccount(): { subject: string; username: string } {
  const subject = unique('sub');
  const username = unique('fed');
  upstream.accounts.set(subject, { preferred_username: username, email: `${username}@corp.example`, email_verified: true });
  return { subject, username };
}

/**
 * Signs in through a provider as the upstream account, at the sign-in page `login` (else the
 * one the account page sends a browser without a session to); back on the account page.
 */
async function signInThrough(b: TestBrowser, subject: string, alias = 'up', login?: string): Promise<void> {
  upstream.nextAccount = subject;
  login ??= location(await b.get(ACCOUNT));
  expect(new URL(login).pathname).toBe(`${realmPath(REALM)}/login`);
  const toUpstream = await b.submit(login, await b.get(login), { provider: alias });
  let response = await b.get(await upstream.browse(location(toUpstream)));
  for (let step = 0; step < 3 && response.statusCode === 303 && location(response) !== ACCOUNT; step++) response = await b.get(location(response));
  expect(location(response), response.body.slice(0, 300)).toBe(ACCOUNT);
}

async function signInWithPassword(b: TestBrowser, user: TestUser, realm = REALM): Promise<void> {
  const login = location(await b.get(`${realmPath(realm)}/account`));
  const answer = await b.submit(login, await b.get(login), { username: user.username, password: user.password });
  expect(location(answer)).toBe(`${issuerOf(realm)}/account`);
}

async function accountPage(b: TestBrowser, realm = REALM): Promise<string> {
  const page = await b.get(`${realmPath(realm)}/account`);
  expect(page.statusCode, page.body.slice(0, 300)).toBe(200);
  return page.body;
}

/** The section's list items, as text without tags. */
const linksOn = (page: string): string[] =>
  [...page.matchAll(/<li class="identity">([\s\S]*?)<\/li>/g)].map(([, item]) => unescape(item!.replace(/<form[\s\S]*?<\/form>/g, '').replace(/<[^>]+>/g, '')).trim());

/** The unlink forms of the page, by the provider and subject each posts. */
function unlinkForms(page: string): Array<Record<string, string>> {
  return [...page.matchAll(/<form method="post" action="([^"]*)">([\s\S]*?)<\/form>/g)]
    .filter(([, action]) => unescape(action!) === UNLINK)
    .map(([, , inner]) => hiddenInputs(inner!));
}

const unlinkFormOf = (page: string, provider: string) => {
  const form = unlinkForms(page).find((each) => each.provider === provider);
  if (!form) throw new Error(`no unlink form of ${provider}`);
  return form;
};

const noticeOf = (response: LightMyRequestResponse): string | null => {
  expect(response.statusCode, response.body.slice(0, 300)).toBe(303);
  return new URL(location(response)).searchParams.get('notice');
};

async function userOf(username: string) {
  const response = await t.admin.request('GET', `/realms/${REALM}/users/${encodeURIComponent(username)}`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { sub: string; identities: Array<{ provider: string; subject: string }> };
}

const identitiesOf = async (username: string) => (await userOf(username)).identities;

async function eventsOf(type: string, userId: string): Promise<Array<{ user_id: string; details: Record<string, unknown> }>> {
  const response = await t.admin.request('GET', `/realms/${REALM}/events?type=${type}`);
  return (response.json() as { events: Array<{ user_id: string; details: Record<string, unknown> }> }).events.filter((event) => event.user_id === userId);
}

/** A person with a password, signed in with it, and linked (as an admin's import would) to an upstream account. */
async function passwordPersonLinked(subject = unique('sub')) {
  const user = await createUser(t.admin, REALM, unique('pw'));
  expect(await t.store.userIdentities.link(REALM, { provider: 'up', subject, userId: user.sub })).toBe(true);
  const b = new TestBrowser(t.app, t.baseUrl);
  await signInWithPassword(b, user);
  return { user, subject, b };
}

/** Moves the person's sign-ins `seconds` into the past. */
async function signedInAgo(userId: string, seconds: number): Promise<void> {
  const moved = await t.store.db.query('UPDATE sessions SET auth_time = auth_time - make_interval(secs => $2) WHERE user_id = $1::uuid', [userId, seconds]);
  expect(moved.rowCount).toBeGreaterThan(0);
}

describe('the account page: linked accounts', () => {
  it('is left out at a realm without providers, and says there is none at a realm with providers', async () => {
    const plain = await createUser(t.admin, PLAIN_REALM, unique('pw'));
    const b = new TestBrowser(t.app, t.baseUrl);
    await signInWithPassword(b, plain, PLAIN_REALM);
    const plainPage = await accountPage(b, PLAIN_REALM);
    expect(plainPage).toContain('<h2>Password</h2>');
    expect(plainPage).not.toContain('Linked accounts');

    const user = await createUser(t.admin, REALM, unique('pw'));
    const other = new TestBrowser(t.app, t.baseUrl);
    await signInWithPassword(other, user);
    const page = await accountPage(other);
    expect(page).toContain('<h2>Linked accounts</h2>\n<p>No account at another provider is linked to yours.</p>');
    expect(unlinkForms(page)).toEqual([]);
  });

  it("lists the account of a brokered sign-in by the provider's name and when it was linked; the only way to sign in offers no unlink", async () => {
    const { subject, username } = upstreamAccount();
    const b = new TestBrowser(t.app, t.baseUrl);
    const before = new Date();
    await signInThrough(b, subject);

    const person = await userOf(username);
    expect(person.identities).toEqual([{ provider: 'up', subject }]);
    expect(await eventsOf('identity.linked', person.sub)).toEqual([expect.objectContaining({ details: expect.objectContaining({ provider: 'up', subject, how: 'created' }) })]);

    const page = await accountPage(b);
    const [item] = linksOn(page);
    // Written as the page's language writes a date, in UTC; the <time> holds the instant.
    expect(item).toMatch(/^Upstream Corp: linked [A-Z][a-z]{2} \d{1,2}, \d{4}, \d\d:\d\d [AP]M UTC$/);
    const linkedAt = /<li class="identity">[\s\S]*?<time datetime="([^"]+)" data-local="minute">/.exec(page)?.[1];
    expect(linkedAt, item).toBeDefined();
    expect(Math.abs(new Date(linkedAt!).getTime() - before.getTime())).toBeLessThan(120_000);
    expect(linksOn(page)).toHaveLength(1);
    expect(unlinkForms(page)).toEqual([]);
    expect(page).toContain(`<p class="only-way">${ONLY_WAY}</p>`);
    expect(page).toContain('<p>Your account has no password: you sign in another way.</p>');
  });

  it('unlinks one of two links, then refuses to unlink the last; a sign-in through the unlinked account no longer finds the person', async () => {
    const { subject, username } = upstreamAccount();
    const b = new TestBrowser(t.app, t.baseUrl);
    await signInThrough(b, subject);
    const person = await userOf(username);
    const secondSubject = unique('second');
    expect(await t.store.userIdentities.link(REALM, { provider: 'second', subject: secondSubject, userId: person.sub })).toBe(true);

    const page = await accountPage(b);
    expect(linksOn(page).map((item) => item.replace(/: linked .*$/, ''))).toEqual(['Upstream Corp', 'second']);
    expect(page).toContain('<button type="submit">Unlink Upstream Corp</button>');
    expect(page).toContain('<button type="submit">Unlink second</button>');
    expect(page).not.toContain(ONLY_WAY);
    const upForm = unlinkFormOf(page, 'up');
    const secondForm = unlinkFormOf(page, 'second');
    expect(upForm).toEqual({ csrf: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), provider: 'up', subject });

    const unlinked = await b.post(UNLINK, upForm);
    expect(noticeOf(unlinked)).toBe('Upstream Corp is unlinked from your account: you no longer sign in with it.');
    const after = (await b.get(location(unlinked))).body;
    expect(after).toContain('<p class="notice" role="status">Upstream Corp is unlinked from your account: you no longer sign in with it.</p>');
    expect(linksOn(after).map((item) => item.replace(/: linked .*$/, ''))).toEqual(['second']);
    expect(unlinkForms(after)).toEqual([]);
    expect(after).toContain(ONLY_WAY);
    expect(await identitiesOf(username)).toEqual([{ provider: 'second', subject: secondSubject }]);
    expect(await eventsOf('identity.unlinked', person.sub)).toEqual([
      expect.objectContaining({ user_id: person.sub, details: { provider: 'up', subject, via: 'account' } }),
    ]);

    // The form of the page that still offered it: the database refuses the last way to sign in.
    const refused = await b.post(UNLINK, secondForm);
    expect(noticeOf(refused)).toBe('second cannot be unlinked: it is your only way to sign in.');
    expect(await identitiesOf(username)).toEqual([{ provider: 'second', subject: secondSubject }]);
    expect(await eventsOf('identity.unlinked', person.sub)).toHaveLength(1);

    // The upstream account is nobody's now: signing in through it makes a new person.
    const again = new TestBrowser(t.app, t.baseUrl);
    await signInThrough(again, subject);
    const newcomer = await userOf(`${username}-2`);
    expect(newcomer.sub).not.toBe(person.sub);
    expect(newcomer.identities).toEqual([{ provider: 'up', subject }]);
  });

  it('of two links unlinked at once, one stays: the last way to sign in is decided in the database', async () => {
    const { subject, username } = upstreamAccount();
    const b = new TestBrowser(t.app, t.baseUrl);
    await signInThrough(b, subject);
    const person = await userOf(username);
    await t.store.userIdentities.link(REALM, { provider: 'second', subject: unique('second'), userId: person.sub });
    const page = await accountPage(b);

    const notices = await Promise.all([b.post(UNLINK, unlinkFormOf(page, 'up')), b.post(UNLINK, unlinkFormOf(page, 'second'))].map(async (response) => noticeOf(await response)));
    expect(notices.filter((notice) => notice?.endsWith('is unlinked from your account: you no longer sign in with it.'))).toHaveLength(1);
    expect(notices.filter((notice) => notice?.endsWith('cannot be unlinked: it is your only way to sign in.'))).toHaveLength(1);
    expect(await identitiesOf(username)).toHaveLength(1);
  });

  it('unlinks the only link of a person who has a password, or a passkey', async () => {
    const { user, subject, b } = await passwordPersonLinked();
    const page = await accountPage(b);
    expect(noticeOf(await b.post(UNLINK, unlinkFormOf(page, 'up')))).toBe('Upstream Corp is unlinked from your account: you no longer sign in with it.');
    expect(await identitiesOf(user.username)).toEqual([]);
    expect(await eventsOf('identity.unlinked', user.sub)).toEqual([expect.objectContaining({ details: { provider: 'up', subject, via: 'account' } })]);

    const federated = upstreamAccount();
    const fb = new TestBrowser(t.app, t.baseUrl);
    await signInThrough(fb, federated.subject);
    const person = await userOf(federated.username);
    expect(unlinkForms(await accountPage(fb))).toEqual([]);
    const added = await t.store.passkeys.create(
      { credentialId: randomBytes(32), realm: REALM, userId: person.sub, publicKey: randomBytes(77), counter: 0, transports: [], backedUp: false, name: 'Phone' },
      10,
    );
    expect(added).toBe(true);
    const withPasskey = await accountPage(fb);
    expect(withPasskey).not.toContain(ONLY_WAY);
    expect(noticeOf(await fb.post(UNLINK, unlinkFormOf(withPasskey, 'up')))).toBe('Upstream Corp is unlinked from your account: you no longer sign in with it.');
    expect(await identitiesOf(federated.username)).toEqual([]);
  });

  it("refuses a form without its CSRF token, with a wrong one or with another browser's, and removes nothing", async () => {
    const { user, subject, b } = await passwordPersonLinked();
    const form = unlinkFormOf(await accountPage(b), 'up');
    const otherBrowser = new TestBrowser(t.app, t.baseUrl);
    await signInWithPassword(otherBrowser, user);
    const othersCsrf = unlinkFormOf(await accountPage(otherBrowser), 'up').csrf!;
    expect(othersCsrf).not.toBe(form.csrf);

    for (const csrf of [undefined, '', `${form.csrf!.slice(0, -4)}AAAA`, othersCsrf]) {
      const { csrf: _csrf, ...fields } = form;
      const response = await b.post(UNLINK, csrf === undefined ? fields : { ...fields, csrf });
      expect(response.statusCode).toBe(400);
      expect(response.body).toContain('The form could not be accepted.');
      expect(response.headers.location).toBeUndefined();
    }
    expect(await identitiesOf(user.username)).toEqual([{ provider: 'up', subject }]);
    expect(await eventsOf('identity.unlinked', user.sub)).toEqual([]);
  });

  it("cannot remove another person's link: the form names a link the person does not have", async () => {
    const victim = await passwordPersonLinked();
    const attacker = await passwordPersonLinked();
    const form = unlinkFormOf(await accountPage(attacker.b), 'up');

    const response = await attacker.b.post(UNLINK, { ...form, subject: victim.subject });
    expect(noticeOf(response)).toBe('That linked account was not found.');
    expect(await identitiesOf(victim.user.username)).toEqual([{ provider: 'up', subject: victim.subject }]);
    expect(await identitiesOf(attacker.user.username)).toEqual([{ provider: 'up', subject: attacker.subject }]);
    expect(await eventsOf('identity.unlinked', victim.user.sub)).toEqual([]);
    expect(await eventsOf('identity.unlinked', attacker.user.sub)).toEqual([]);
  });

  it('answers a form naming no link of the person (missing, NUL, very long, odd text) without changing anything, never with a 500', async () => {
    const { user, subject, b } = await passwordPersonLinked();
    const form = unlinkFormOf(await accountPage(b), 'up');
    const odd: Array<Record<string, string>> = [{ subject: 'up\u0000' }, { provider: 'up\u0000' }, { subject: 'x'.repeat(20_000) }, { provider: '../up', subject: "' OR 1=1 --" }, { subject: '\ud800' }];
    for (const fields of odd) {
      const response = await b.post(UNLINK, { ...form, ...fields });
      expect(response.statusCode, `${JSON.stringify(fields).slice(0, 60)}: ${response.body.slice(0, 200)}`).toBeLessThan(500);
      if (response.statusCode === 303) expect(noticeOf(response)).toBe('That linked account was not found.');
    }
    const { subject: _subject, ...withoutSubject } = form;
    const { provider: _provider, ...withoutProvider } = form;
    for (const fields of [withoutSubject, withoutProvider]) {
      const response = await b.post(UNLINK, fields);
      expect(response.statusCode).toBe(400);
      expect(response.body).toContain('The form could not be accepted.');
    }
    expect(await identitiesOf(user.username)).toEqual([{ provider: 'up', subject }]);
    expect(await eventsOf('identity.unlinked', user.sub)).toEqual([]);
  });

  it('an older sign-in unlinks nothing: the person signs in again and comes back, then the unlink is made', async () => {
    const { user, subject, b } = await passwordPersonLinked();
    const form = unlinkFormOf(await accountPage(b), 'up');
    await signedInAgo(user.sub, 301);

    const refused = await b.post(UNLINK, form);
    expect(refused.statusCode, refused.body.slice(0, 300)).toBe(303);
    expect(redirectPath(refused)).toBe(`${realmPath(REALM)}/login`);
    expect(await identitiesOf(user.username)).toEqual([{ provider: 'up', subject }]);
    expect(await eventsOf('identity.unlinked', user.sub)).toEqual([]);

    const login = location(refused);
    const signedIn = await b.submit(login, await b.get(login), { username: user.username, password: user.password });
    expect(location(signedIn)).toBe(ACCOUNT);
    const fresh = await accountPage(b);
    expect(fresh).not.toContain('class="reauthentication"');
    expect(noticeOf(await b.post(UNLINK, unlinkFormOf(fresh, 'up')))).toBe('Upstream Corp is unlinked from your account: you no longer sign in with it.');
    expect(await identitiesOf(user.username)).toEqual([]);
  });

  it('a person signed in through the provider long ago signs in through it again before unlinking', async () => {
    const { subject, username } = upstreamAccount();
    const b = new TestBrowser(t.app, t.baseUrl);
    await signInThrough(b, subject);
    const person = await userOf(username);
    await t.store.userIdentities.link(REALM, { provider: 'second', subject: unique('second'), userId: person.sub });
    const form = unlinkFormOf(await accountPage(b), 'second');
    await signedInAgo(person.sub, 301);

    const refused = await b.post(UNLINK, form);
    expect(redirectPath(refused)).toBe(`${realmPath(REALM)}/login`);
    expect(await identitiesOf(username)).toHaveLength(2);
    await signInThrough(b, subject, 'up', location(refused));
    expect(noticeOf(await b.post(UNLINK, unlinkFormOf(await accountPage(b), 'second')))).toBe('second is unlinked from your account: you no longer sign in with it.');
    expect(await identitiesOf(username)).toEqual([{ provider: 'up', subject }]);
  });
  it("keeps a passkey that is the person's only way to sign in; a passkey deleted and the link unlinked at once leave one of them", async () => {
    const { subject, username } = upstreamAccount();
    const b = new TestBrowser(t.app, t.baseUrl);
    await signInThrough(b, subject);
    const person = await userOf(username);
    const addPasskey = async (name: string) =>
      expect(
        await t.store.passkeys.create({ credentialId: randomBytes(32), realm: REALM, userId: person.sub, publicKey: randomBytes(77), counter: 0, transports: [], backedUp: false, name }, 10),
      ).toBe(true);
    const passkeysLeft = async () => (await t.store.passkeys.listForUser(REALM, person.sub)).map((passkey) => passkey.name);
    const deleteForms = (page: string) =>
      [...page.matchAll(/<form method="post" action="([^"]*)">([\s\S]*?)<\/form>/g)].filter(([, action]) => unescape(action!) === `${ACCOUNT}/passkeys/delete`).map(([, , inner]) => hiddenInputs(inner!));

    // The passkey and the link, each the other's only alternative, removed at once: the
    // database decides one after the other, and the second is refused.
    await addPasskey('Phone');
    const page = await accountPage(b);
    const [deleted, unlinked] = await Promise.all([b.post(`${ACCOUNT}/passkeys/delete`, deleteForms(page)[0]!), b.post(UNLINK, unlinkFormOf(page, 'up'))]);
    const notices = [noticeOf(deleted), noticeOf(unlinked)];
    const left = { passkeys: await passkeysLeft(), identities: await identitiesOf(username) };
    expect(left.passkeys.length + left.identities.length, JSON.stringify(notices)).toBe(1);

    // Passkeys alone left: each but the last is deleted; the last is kept, and the page says why.
    await addPasskey('Laptop');
    if (left.identities.length === 1) {
      expect(noticeOf(await b.post(UNLINK, unlinkFormOf(await accountPage(b), 'up')))).toBe('Upstream Corp is unlinked from your account: you no longer sign in with it.');
    }
    for (let forms = deleteForms(await accountPage(b)); forms.length > 1; forms = deleteForms(await accountPage(b))) {
      expect(noticeOf(await b.post(`${ACCOUNT}/passkeys/delete`, forms[0]!))).toBe('The passkey was deleted.');
    }
    const [last] = deleteForms(await accountPage(b));
    expect(noticeOf(await b.post(`${ACCOUNT}/passkeys/delete`, last!))).toBe(
      'The passkey was not deleted: it is your only way to sign in, as you have no password, other passkey or linked account.',
    );
    expect(await passkeysLeft()).toHaveLength(1);
    expect(await identitiesOf(username)).toEqual([]);
  });
});

/** The link form of the account page: its action, its CSRF token, and the providers its buttons name. */
function linkFormOf(page: string): { action: string; csrf: string; providers: string[] } {
  const found = [...page.matchAll(/<form method="post" action="([^"]*)">([\s\S]*?)<\/form>/g)].find(([, action]) => unescape(action!) === `${ACCOUNT}/identities/link`);
  if (!found) throw new Error('no link form');
  return {
    action: unescape(found[1]!),
    csrf: hiddenInputs(found[2]!).csrf!,
    providers: [...found[2]!.matchAll(/<button type="submit" name="provider" value="([^"]*)">/g)].map(([, alias]) => alias!),
  };
}

/** The link form posted for `alias`, then the upstream sign-in as `subject`: the callback URL the upstream sends the browser to. */
async function linkAt(b: TestBrowser, subject: string, alias = 'up'): Promise<string> {
  const form = linkFormOf(await accountPage(b));
  const toUpstream = await b.post(form.action, { csrf: form.csrf, provider: alias });
  expect(toUpstream.statusCode, toUpstream.body.slice(0, 300)).toBe(303);
  expect(location(toUpstream)).toMatch(new RegExp(`^${upstream.issuer}/auth\\?`));
  upstream.nextAccount = subject;
  return upstream.browse(location(toUpstream));
}

describe('the account page: linking an account at another provider', () => {
  it('links an upstream account to the signed-in person, who then signs in with it', async () => {
    const user = await createUser(t.admin, REALM, unique('pw'));
    const b = new TestBrowser(t.app, t.baseUrl);
    await signInWithPassword(b, user);
    const page = await accountPage(b);
    expect(linkFormOf(page)).toEqual({ action: `${ACCOUNT}/identities/link`, csrf: expect.any(String), providers: ['up', 'second'] });
    expect(page).toContain('>Link an account at Upstream Corp</button>');
    // The browser follows the form's redirect to the provider only if the page's form-action lists it.
    expect((await b.get(ACCOUNT)).headers['content-security-policy']).toMatch(new RegExp(`form-action 'self' [^;]*${upstream.issuer}`));

    const { subject } = upstreamAccount();
    const back = await b.get(await linkAt(b, subject));
    expect(noticeOf(back)).toBe('Your account at Upstream Corp is linked: you can sign in with it now.');
    expect(await identitiesOf(user.username)).toEqual([{ provider: 'up', subject }]);
    expect(await eventsOf('identity.linked', user.sub)).toEqual([expect.objectContaining({ details: { provider: 'up', subject, how: 'account' } })]);

    const elsewhere = new TestBrowser(t.app, t.baseUrl);
    await signInThrough(elsewhere, subject);
    expect(await accountPage(elsewhere)).toContain(`<strong>${user.username}</strong>`);

    // Linking it again changes nothing.
    expect(noticeOf(await b.get(await linkAt(b, subject)))).toBe('That account at Upstream Corp is linked to yours already.');
    expect(await eventsOf('identity.linked', user.sub)).toHaveLength(1);
  });

  it('does not take an upstream account linked to another person', async () => {
    const owner = await passwordPersonLinked(upstreamAccount().subject);
    const user = await createUser(t.admin, REALM, unique('pw'));
    const b = new TestBrowser(t.app, t.baseUrl);
    await signInWithPassword(b, user);
    expect(noticeOf(await b.get(await linkAt(b, owner.subject)))).toBe(
      'That account at Upstream Corp belongs to another person of this service: it was not linked to yours.',
    );
    expect(await identitiesOf(user.username)).toEqual([]);
    expect(await identitiesOf(owner.user.username)).toEqual([{ provider: 'up', subject: owner.subject }]);
  });

  it('an older sign-in links nothing: the form leads to the sign-in page, not to the provider', async () => {
    const user = await createUser(t.admin, REALM, unique('pw'));
    const b = new TestBrowser(t.app, t.baseUrl);
    await signInWithPassword(b, user);
    const form = linkFormOf(await accountPage(b));
    await signedInAgo(user.sub, 301);
    const refused = await b.post(form.action, { csrf: form.csrf, provider: 'up' });
    expect(refused.statusCode, refused.body.slice(0, 300)).toBe(303);
    expect(redirectPath(refused)).toBe(`${realmPath(REALM)}/login`);
    expect(await identitiesOf(user.username)).toEqual([]);
  });

  it('is finished only in the session that began it: a callback in another browser links nothing', async () => {
    // The attacker begins linking at their own account and has a victim's browser come back with the victim's upstream account.
    const attacker = await createUser(t.admin, REALM, unique('pw'));
    const victim = await createUser(t.admin, REALM, unique('pw'));
    const ab = new TestBrowser(t.app, t.baseUrl);
    await signInWithPassword(ab, attacker);
    const vb = new TestBrowser(t.app, t.baseUrl);
    await signInWithPassword(vb, victim);
    const { subject } = upstreamAccount();
    const callback = await linkAt(ab, subject);

    const answer = await vb.get(callback);
    expect(noticeOf(answer)).toBe('The account was not linked: the request expired or was made in another session. Try again.');
    expect(await identitiesOf(attacker.username)).toEqual([]);
    expect(await identitiesOf(victim.username)).toEqual([]);
    // The state was taken: the browser that began it cannot use it afterwards either.
    expect((await ab.get(callback)).statusCode).toBe(400);
    expect(await identitiesOf(attacker.username)).toEqual([]);
  });

  it("refuses a form without the link form's CSRF token, and an unknown provider, linking nothing", async () => {
    const user = await createUser(t.admin, REALM, unique('pw'));
    const b = new TestBrowser(t.app, t.baseUrl);
    await signInWithPassword(b, user);
    const form = linkFormOf(await accountPage(b));
    const posted: Array<Record<string, string>> = [{ provider: 'up' }, { provider: 'up', csrf: `${form.csrf.slice(0, -4)}AAAA` }, { csrf: form.csrf }];
    for (const fields of posted) {
      const response = await b.post(form.action, fields);
      expect(response.statusCode).toBe(400);
      expect(response.body).toContain('The form could not be accepted.');
    }
    const unknown = await b.post(form.action, { csrf: form.csrf, provider: 'nope' });
    expect(noticeOf(unknown)).toBe('This way of signing in is not available. Return to the application and try again.');
    expect(await identitiesOf(user.username)).toEqual([]);
  });
});
