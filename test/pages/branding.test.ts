import { createHash } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, type TestApp, startTestApp } from '../support/app.js';
import { authorize, codeRequest, freshRealm, redirectPath } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, location } from '../support/flow.js';
import { contrastRatio, focusColourOn, textColourOn } from '../../src/pages/contrast.js';
import { realmPath } from '../support/oauth.js';
import { createUser } from '../support/users.js';

/**
 * Branding (CONTRACT.md §10): the realm's `display_name` on every page, its `logo_uri` above the
 * title with the CSP allowing that image's origin alone, its `primary_color` on the main buttons
 * with the text colour that contrasts most; the client's `client_name` on the sign-in and
 * consent pages.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

const cspOf = (page: LightMyRequestResponse): string[] => String(page.headers['content-security-policy']).split('; ');
const directive = (page: LightMyRequestResponse, name: string): string | undefined => cspOf(page).find((part) => part.startsWith(`${name} `));

/** The sign-in page of a new request, and after signing in, its consent page. */
async function pagesOf(settings: Record<string, unknown>, client: Record<string, unknown> = {}) {
  const realm = await freshRealm(t, settings);
  const { client_id: clientId } = await t.admin.createClient(realm, {
    client_type: 'public',
    redirect_uris: [REDIRECT_URI],
    grant_types: ['authorization_code'],
    scope: 'openid profile',
    ...client,
  });
  const user = await createUser(t.admin, realm, `ada-${clientId.slice(0, 6)}`);
  const browser = new TestBrowser(t.app, BASE_URL);
  const url = location(await authorize(browser, realm, codeRequest(clientId)));
  const signIn = await browser.get(url);
  const signedIn = await browser.submit(url, signIn, { username: user.username, password: user.password });
  expect(redirectPath(signedIn)).toMatch(/\/consent$/);
  const consent = await browser.get(location(signedIn));
  return { realm, clientId, browser, signIn, consent };
}

describe('the realm and the client named', () => {
  it('shows the display name on the sign-in and consent pages (and in their titles), and the client\u2019s name on both', async () => {
    const { signIn, consent } = await pagesOf({ display_name: 'Acme <Corp> & Sons' }, { client_name: 'Billing "Pro"' });
    for (const page of [signIn, consent]) {
      expect(page.body).toContain('<p class="realm">Acme &lt;Corp&gt; &amp; Sons</p>');
      expect(page.body).toMatch(/<title>[^<]+ · Acme &lt;Corp&gt; &amp; Sons<\/title>/);
    }
    expect(signIn.body).toContain('<p class="client"><span>to continue to <strong>Billing &quot;Pro&quot;</strong></span></p>');
    // The consent page names the application once, beside its logo.
    expect(consent.body).toContain('<p class="client"><span><strong>Billing &quot;Pro&quot;</strong> asks to:</span></p>');
    expect(consent.body.split('Billing &quot;Pro&quot;').length - 1).toBe(1);
  });

  it('names the realm by its name without a display name, and a client without a name by its id', async () => {
    const { realm, clientId, signIn, consent } = await pagesOf({});
    for (const page of [signIn, consent]) expect(page.body).toContain(`<p class="realm">${realm}</p>`);
    expect(signIn.body).toContain(`to continue to <strong>${clientId}</strong>`);
    expect(consent.body).toContain(`<strong>${clientId}</strong> asks to:`);
  });

  it('shows the display name on pages of no client (the device page), and no client line there', async () => {
    const realm = await freshRealm(t, { display_name: 'Acme Corp' });
    const page = await new TestBrowser(t.app, BASE_URL).get(`${realmPath(realm)}/device/user`);
    expect(page.body).toContain('<p class="realm">Acme Corp</p>');
    expect(page.body).not.toContain('class="client"');
  });
});

describe('the logo', () => {
  it('is an image above the title, and the CSP allows its origin and nothing else', async () => {
    const { signIn, consent } = await pagesOf({ logo_uri: 'https://cdn.acme.example/brand/logo.svg?v=2' });
    for (const page of [signIn, consent]) {
      expect(page.body).toContain('<header class="brand"><img src="https://cdn.acme.example/brand/logo.svg?v=2" alt=""><p class="realm">');
      expect(directive(page, 'img-src')).toBe('img-src https://cdn.acme.example');
      expect(cspOf(page)).toContain("default-src 'none'");
    }
  });

  it('leaves the CSP without img-src when the realm has none', async () => {
    const { signIn, consent } = await pagesOf({});
    for (const page of [signIn, consent]) {
      expect(directive(page, 'img-src')).toBeUndefined();
      expect(page.body).not.toContain('<img');
    }
  });

  it('of a client is shown beside its name on the sign-in and consent pages, the CSP allowing both logos\u2019 origins and no other', async () => {
    const { signIn, consent } = await pagesOf(
      { logo_uri: 'https://cdn.acme.example/logo.svg' },
      { client_name: 'Billing', logo_uri: 'https://apps.billing.example/icon.png' },
    );
    expect(signIn.body).toContain('<p class="client"><img src="https://apps.billing.example/icon.png" alt=""><span>to continue to <strong>Billing</strong></span></p>');
    expect(consent.body).toContain('<p class="client"><img src="https://apps.billing.example/icon.png" alt=""><span><strong>Billing</strong> asks to:</span></p>');
    for (const page of [signIn, consent]) expect(directive(page, 'img-src')).toBe('img-src https://cdn.acme.example https://apps.billing.example');
  });

  it('of a client must be an https URL; null removes it', async () => {
    const realm = await freshRealm(t);
    for (const logo of ['http://apps.billing.example/icon.png', 'javascript:alert(1)', 'data:image/png;base64,AAAA']) {
      const refused = await t.admin.request('POST', `/realms/${realm}/clients`, { client_type: 'public', redirect_uris: [REDIRECT_URI], logo_uri: logo });
      expect(refused.statusCode, logo).toBe(400);
      expect(refused.json().error_description).toContain('logo_uri');
    }
    const { client_id: clientId } = await t.admin.createClient(realm, { client_type: 'public', redirect_uris: [REDIRECT_URI], logo_uri: 'https://apps.example/a.png' });
    const cleared = await t.admin.request('PATCH', `/realms/${realm}/clients/${clientId}`, { logo_uri: null });
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect(cleared.json().logo_uri).toBeUndefined();
  });

  it('of a client is an admin\u2019s to set: a client registering itself (RFC 7591) cannot set or change it', async () => {
    const realm = await freshRealm(t, { open_registration: true });
    const json = (method: 'POST' | 'PUT', url: string, body: object, token?: string) =>
      t.app.inject({
        method,
        url,
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        payload: JSON.stringify(body),
      });
    const metadata = { redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none', logo_uri: 'https://phish.example/bank.png' };
    const registered = await json('POST', `${realmPath(realm)}/connect/register`, metadata);
    expect(registered.statusCode, registered.body).toBe(201);
    const { client_id: clientId, registration_access_token: token } = registered.json();
    expect((await t.admin.request('GET', `/realms/${realm}/clients/${clientId}`)).json().logo_uri).toBeUndefined();

    await t.admin.request('PATCH', `/realms/${realm}/clients/${clientId}`, { logo_uri: 'https://apps.example/real.png' });
    const updated = await json('PUT', `${realmPath(realm)}/connect/register/${clientId}`, { ...metadata, client_id: clientId }, token);
    expect(updated.statusCode, updated.body).toBe(200);
    expect((await t.admin.request('GET', `/realms/${realm}/clients/${clientId}`)).json().logo_uri).toBe('https://apps.example/real.png');
  });

  it('is shown on every page of the realm, an error page included', async () => {
    const realm = await freshRealm(t, { logo_uri: 'https://static.acme.example/l.png' });
    const error = await new TestBrowser(t.app, BASE_URL).get(`${realmPath(realm)}/authorize?client_id=nobody`);
    expect(error.statusCode).toBe(400);
    expect(error.body).toContain('<img src="https://static.acme.example/l.png" alt="">');
    expect(directive(error, 'img-src')).toBe('img-src https://static.acme.example');
  });
});

describe('the primary colour', () => {
  /** Every inline stylesheet of a page is allowed by its hash, and the CSP allows no other. */
  function expectStylesAllowed(page: LightMyRequestResponse): string[] {
    const styles = [...page.body.matchAll(/<style>([\s\S]*?)<\/style>/g)].map(([, text]) => text!);
    const hashes = styles.map((text) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`);
    expect(directive(page, 'style-src')).toBe(`style-src ${hashes.join(' ')}`);
    return styles;
  }

  it.each([
    ['#0b6e4f', '#ffffff'],
    ['#FFD700', '#000000'],
    ['#777777', '#000000'],
    ['#000000', '#ffffff'],
  ])('colours the main buttons %s with the text that contrasts most (%s), in a stylesheet the CSP allows by its hash', async (colour, text) => {
    const { signIn, consent } = await pagesOf({ primary_color: colour });
    for (const page of [signIn, consent]) {
      const styles = expectStylesAllowed(page);
      expect(styles).toHaveLength(2);
      // The focus ring stands out from the brand's buttons and from the page, in each scheme.
      const [light, dark] = [focusColourOn('#ffffff', colour.toLowerCase()), focusColourOn('#121212', colour.toLowerCase())];
      expect(styles[1]).toBe(
        `:root { --primary: ${colour.toLowerCase()}; --on-primary: ${text}; --focus: ${light}; }\n@media (prefers-color-scheme: dark) { :root { --focus: ${dark}; } }`,
      );
      expect(cspOf(page).join('; ')).not.toContain('unsafe-inline');
    }
  });

  it('keeps the one stylesheet without a colour of the realm\u2019s', async () => {
    const { signIn } = await pagesOf({});
    expect(expectStylesAllowed(signIn)).toHaveLength(1);
  });

  it('needs to refuse no colour: each reaches at least 4.5:1 with the text chosen for it', () => {
    const hex = (value: number) => value.toString(16).padStart(2, '0');
    let lowest = Number.POSITIVE_INFINITY;
    for (let r = 0; r <= 255; r += 5) {
      for (let g = 0; g <= 255; g += 5) {
        for (let b = 0; b <= 255; b += 5) {
          const colour = `#${hex(r)}${hex(g)}${hex(b)}`;
          lowest = Math.min(lowest, contrastRatio(colour, textColourOn(colour)));
        }
      }
    }
    expect(lowest).toBeGreaterThanOrEqual(4.5);
    expect(lowest).toBeLessThan(4.6);
  });

  it('draws a focus ring that stands out from the page in each scheme, and from a yellow brand\u2019s buttons', () => {
    const hex = (value: number) => value.toString(16).padStart(2, '0');
    for (const page of ['#ffffff', '#121212']) {
      let lowestOnBrand = Number.POSITIVE_INFINITY;
      for (let r = 0; r <= 255; r += 15) {
        for (let g = 0; g <= 255; g += 15) {
          for (let b = 0; b <= 255; b += 15) {
            const brand = `#${hex(r)}${hex(g)}${hex(b)}`;
            const ring = focusColourOn(page, brand);
            expect(contrastRatio(ring, page), `${ring} on ${page} around ${brand}`).toBeGreaterThanOrEqual(3);
            lowestOnBrand = Math.min(lowestOnBrand, contrastRatio(ring, brand));
          }
        }
      }
      // One colour cannot be far from both a page and a brand of middling luminance: about 2.5:1 with such a brand, the page always 3:1.
      expect(lowestOnBrand).toBeGreaterThan(2.4);
    }
    // The fixed amber ring of before nearly vanished beside a yellow brand's buttons (1.5:1); now 3:1 or more, in both schemes.
    expect(contrastRatio('#f0a000', '#ffd700')).toBeLessThan(1.6);
    for (const page of ['#ffffff', '#121212']) expect(contrastRatio(focusColourOn(page, '#ffd700'), '#ffd700')).toBeGreaterThanOrEqual(3);
  });
});
