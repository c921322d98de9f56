import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { pkce } from '../support/flow.js';
import { browserSkipReason, launchChromium, signIn, startsWith, watchedContext } from './support.js';

/**
 * response_mode=form_post in a real Chromium (CONTRACT.md §12): after the sign-in, the page
 * POSTs code, state and iss to the client on another origin, by its script under the page's
 * CSP, or by its button without JavaScript.
 */
const skipReason = browserSkipReason('test/browser/form-post.test.ts');
const PASSWORD = 'correct horse battery';

/** The client's redirect URI: records each POSTed form, answers "ok". */
async function startFormReceiver(): Promise<{ server: Server; redirectUri: string; posts: URLSearchParams[] }> {
  const posts: URLSearchParams[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      if (request.method === 'POST') posts.push(new URLSearchParams(body));
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end('<!doctype html><html lang="en"><head><title>ok</title></head><body><p>ok</p></body></html>');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, redirectUri: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`, posts };
}

describe.skipIf(skipReason !== undefined)(`form_post in Chromium${skipReason ? ` (${skipReason})` : ''}`, () => {
  let t: TestApp;
  let browser: Browser;
  let receiver: Awaited<ReturnType<typeof startFormReceiver>>;
  let issuer: string;
  let clientId: string;

  beforeAll(async () => {
    receiver = await startFormReceiver();
    t = await startTestApp({ listen: true });
    issuer = `${t.baseUrl}/oauth2`;
    const created = await t.admin.request('POST', '/realms/root/users', { username: 'dana', password: PASSWORD });
    expect(created.statusCode, created.body).toBe(201);
    const client = await t.admin.createClient('root', {
      client_type: 'public',
      redirect_uris: [receiver.redirectUri],
      grant_types: ['authorization_code'],
      scope: 'openid',
    });
    clientId = client.client_id;
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await new Promise((resolve) => (receiver ? receiver.server.close(resolve) : resolve(undefined)));
  });

  const authorizationUrl = (challenge: string, state: string) =>
    `${issuer}/authorize?${new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      response_mode: 'form_post',
      redirect_uri: receiver.redirectUri,
      scope: 'openid',
      state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    })}`;
  const atRedirectUri = (url: URL) => `${url.origin}${url.pathname}` === receiver.redirectUri;

  /** The form the client received last: code, state and iss; its code buys tokens. */
  async function expectPosted(state: string, verifier: string) {
    const posted = receiver.posts.at(-1)!;
    expect([...posted.keys()].sort()).toEqual(['code', 'iss', 'state']);
    expect(posted.get('state')).toBe(state);
    expect(posted.get('iss')).toBe(issuer);
    const response = await fetch(`${issuer}/access_token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'authorization_code', code: posted.get('code')!, redirect_uri: receiver.redirectUri, client_id: clientId, code_verifier: verifier }),
    });
    expect(response.status).toBe(200);
  }

  async function signInWithFormPost(page: Page, state: string): Promise<string> {
    const { verifier, challenge } = pkce();
    await page.goto(authorizationUrl(challenge, state));
    expect(page.url()).toMatch(startsWith(`${issuer}/login?`));
    return verifier;
  }

  it('submits by script under the page\'s CSP, and by the button without JavaScript', async () => {
    const withScript = await watchedContext(browser, { javaScriptEnabled: true });
    try {
      const { page, problems } = withScript;
      const verifier = await signInWithFormPost(page, 'with-js');
      await signIn(page, 'dana', PASSWORD, startsWith(`${issuer}/consent?`));
      await Promise.all([page.waitForURL(atRedirectUri), page.getByRole('button', { name: 'Allow' }).click()]);
      await expect(page.locator('body').innerText()).resolves.toBe('ok');
      await expectPosted('with-js', verifier);
      expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
    } finally {
      await withScript.context.close();
    }

    const noScript = await watchedContext(browser, { javaScriptEnabled: false });
    try {
      const { page, problems } = noScript;
      const verifier = await signInWithFormPost(page, 'without-js');
      // The consent is remembered: the sign-in form itself leads to the form_post page, which waits for the person.
      await page.getByLabel('Username').fill('dana');
      await page.getByLabel('Password').fill(PASSWORD);
      await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Sign in' }).click()]);
      await expect(page.title()).resolves.toMatch(/^Returning to the application/);
      await expect(page.locator('noscript').count()).resolves.toBe(1);
      await Promise.all([page.waitForURL(atRedirectUri), page.getByRole('button', { name: 'Continue' }).click()]);
      await expectPosted('without-js', verifier);
      expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
    } finally {
      await noScript.context.close();
    }
  }, 60_000);
});
