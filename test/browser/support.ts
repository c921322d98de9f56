import { existsSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, type BrowserContext, type Page, chromium } from 'playwright-core';
import { expect } from 'vitest';
import { testStoreKind } from '../support/store.js';
import { measurePage } from './page-metrics.js';

/**
 * What the browser tests share: Chromium (found at /usr/bin/chromium, which .ci/run installs),
 * the reason to skip when it is missing (the pages do not depend on the store, so the browser
 * tests run in the pglite project only), and contexts that collect what went wrong in a page.
 */
export const CHROMIUM = '/usr/bin/chromium';

/** Why the browser tests of `file` are skipped here, warned about once; undefined when they run. */
export function browserSkipReason(file: string): string | undefined {
  const reason = !existsSync(CHROMIUM)
    ? `skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`
    : testStoreKind() !== 'pglite'
      ? 'skipped: runs in the pglite project only'
      : undefined;
  if (!existsSync(CHROMIUM)) console.warn(`${file}: ${reason}`);
  return reason;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** What went wrong in the page, as the browser reports it: console errors, uncaught errors, CSP violations. */
export interface Problems {
  console: string[];
  pageErrors: string[];
  violations: string[];
}

/** A context whose pages report their problems; CSP violations through a binding, since the pages run no script of their own. */
export async function watchedContext(
  browser: Browser,
  options: { javaScriptEnabled: boolean; locale?: string; timezoneId?: string },
): Promise<{ context: BrowserContext; page: Page; problems: Problems }> {
  const problems: Problems = { console: [], pageErrors: [], violations: [] };
  const context = await browser.newContext(options);
  if (options.javaScriptEnabled) {
    await context.exposeBinding('reportViolation', (_source, violation: string) => {
      problems.violations.push(violation);
    });
    await context.addInitScript({
      content: `document.addEventListener('securitypolicyviolation', (event) => {
        window.reportViolation(event.violatedDirective + ' blocked ' + (event.blockedURI || '(inline)') + ' on ' + event.documentURI);
      });`,
    });
  }
  context.setDefaultTimeout(15_000); // a blocked form submission shows as a wait that never ends
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.console.push(`${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.pageErrors.push(error.message));
  return { context, page, problems };
}

/** Signs in on the sign-in page the browser is on, and waits for the page the form leads to. */
export async function signIn(page: Page, username: string, password: string, next: RegExp | ((url: URL) => boolean)): Promise<void> {
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await Promise.all([page.waitForURL(next), page.getByRole('button', { name: 'Sign in' }).click()]);
}

/** A regular expression matching `prefix` exactly at the start of a URL. */
export const startsWith = (prefix: string): RegExp => new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Clicks the button and waits for the page it leads to. */
export async function clickAndWait(page: Page, button: string, next: RegExp | ((url: URL) => boolean)): Promise<void> {
  await Promise.all([page.waitForURL(next), page.getByRole('button', { name: button }).click()]);
}

/**
 * The page as it is, in the light and the dark scheme: no sideways scrolling, no box past the
 * window's edges, and every text at WCAG AA contrast (page-metrics.ts). Left in the light scheme.
 */
export async function expectReadableInBothSchemes(page: Page, name: string, fewestTexts = 3): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const metrics = await measurePage(page);
    const where = `${name} at ${metrics.innerWidth} px, ${scheme} (${page.url()})`;
    expect(metrics.unreadable, where).toEqual([]);
    expect(metrics.scrollWidth, `${where}: sideways scrolling`).toBeLessThanOrEqual(metrics.innerWidth);
    expect(metrics.overflowing, `${where}: boxes past the window`).toEqual([]);
    expect(metrics.contrasts.length, `${where}: no text measured`).toBeGreaterThanOrEqual(fewestTexts);
    expect(metrics.contrasts.filter((text) => text.ratio < text.required), `${where}: texts below WCAG AA`).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** Nothing is wider than the window: no sideways scrolling on a phone. */
export async function expectFits(page: Page): Promise<void> {
  const widths = await page.evaluate('[document.documentElement.scrollWidth, window.innerWidth]');
  const [content, window] = widths as [number, number];
  expect(content, page.url()).toBeLessThanOrEqual(window);
}

/**
 * A page that tells the person something failed (CONTRACT.md §16): its reference, and the way back
 * to the application named `application` at `origin`; laid out at a phone's and a desktop's width
 * without sideways scrolling, a box past the window or text below WCAG AA.
 */
export async function expectFailurePageWithWayBack(page: Page, way: { back: string; application: string; origin: string }): Promise<void> {
  await page.waitForSelector('p.reference');
  const back = page.locator('a.back-to-application');
  await expect(back.textContent()).resolves.toBe(`${way.back} ${way.application}`);
  await expect(back.getAttribute('href')).resolves.toBe(way.origin);
  await expect(page.locator('p.reference code').textContent()).resolves.toMatch(/^[0-9a-f]{12}$/);
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 800 });
    const metrics = await measurePage(page);
    expect(metrics.scrollWidth, `sideways scrolling at ${width} px`).toBeLessThanOrEqual(metrics.innerWidth);
    expect(metrics.overflowing).toEqual([]);
    expect(metrics.contrasts.filter((text) => text.ratio < text.required)).toEqual([]);
  }
}

export interface CallbackServer {
  server: Server;
  redirectUri: string;
  hits: string[];
}

/** The client's redirect URI: a tiny server on its own port that answers every request with an "ok" page. */
export async function startCallbackServer(): Promise<CallbackServer> {
  const hits: string[] = [];
  const server = createServer((request, response) => {
    hits.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><html lang="en"><head><title>ok</title></head><body><p>ok</p></body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, redirectUri: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`, hits };
}

/** Closes a callback server, if one was started. */
export const closeCallbackServer = (callback: CallbackServer | undefined): Promise<void> =>
  new Promise((resolve) => (callback ? callback.server.close(() => resolve()) : resolve()));
