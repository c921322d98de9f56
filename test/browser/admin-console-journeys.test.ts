import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestApp, startTestApp } from '../support/app.js';
import { type Problems, browserSkipReason, expectReadableInBothSchemes, launchChromium, watchedContext } from './support.js';

/**
 * The admin console's journey editor in Chromium: a journey built by clicking and choosing
 * (nodes added, their outcomes chosen, one removed and the outcome that led to it unset, which
 * keeps it from being saved), saved and read back through the admin API, at a phone's and a
 * desktop's width with no sideways scrolling and AA contrast in both schemes; a stored journey
 * with a choice and a condition loaded, an outcome and its fields changed through the cards;
 * JSON typed in the advanced view redrawing the cards, or saying why it cannot; the server's
 * refusal shown beside the form and in the card of the node it names; the editor in French.
 */
const skipReason = browserSkipReason('test/browser/admin-console-journeys.test.ts');

const REALM = 'trips';

describe.skipIf(skipReason !== undefined)(`the admin console's journey editor in Chromium${skipReason ? ` (${skipReason})` : ''}`, () => {
  let t: TestApp;
  let browser: Browser;
  let admin: { context: BrowserContext; page: Page; problems: Problems };

  const journeysUrl = () => `${t.baseUrl}/admin/console#/realms/${REALM}/journeys`;
  const stored = async (name: string) => {
    const answer = await t.admin.request('GET', `/realms/${REALM}/journeys/${name}`);
    return { status: answer.statusCode, journey: answer.statusCode === 200 ? answer.json() : undefined };
  };
  const form = (page: Page) => page.getByRole('form', { name: 'Store a journey' });
  const nodeCard = (page: Page, name: string) => form(page).getByRole('region', { name: `Node ${name}`, exact: true });
  const problem = (page: Page) => form(page).locator('p.journey-problem').last();
  /** Chromium reports each refused fetch as a console error: those a test provokes are expected. */
  const unexpected = (problems: Problems, statuses: number[]) => ({
    ...problems,
    console: problems.console.filter((line) => !statuses.some((status) => line.includes(`status of ${status}`))),
  });

  async function openJourneys(page: Page): Promise<void> {
    // A fresh load: the editor starts empty.
    await page.goto(journeysUrl());
    await page.reload();
    await page.getByRole('region', { name: 'Journey default' }).waitFor();
    await form(page).getByText('No nodes yet: add the first one below.').waitFor();
  }

  async function addNode(page: Page, name: string, type: string): Promise<Locator> {
    const add = form(page).getByRole('group', { name: 'Add a node' });
    await add.getByRole('textbox', { name: /^Node name/ }).fill(name);
    await add.getByRole('combobox', { name: 'Its type' }).selectOption(type);
    await add.getByRole('button', { name: 'Add the node' }).click();
    const card = nodeCard(page, name);
    await card.waitFor();
    return card;
  }

  const leadsTo = (card: Locator, outcome: string) => card.getByRole('combobox', { name: new RegExp(`^"${outcome}" leads to`) });

  /** The view at `width`: no sideways scrolling, nothing past the window, AA contrast, in both schemes. */
  async function expectWellLaidOut(page: Page, width: number): Promise<void> {
    expect(page.viewportSize()?.width).toBe(width);
    await expectReadableInBothSchemes(page, 'journeys', 21);
  }

  beforeAll(async () => {
    [t, browser] = await Promise.all([startTestApp({ listen: true }), launchChromium()]);
    await t.admin.createRealm(REALM);
    admin = await watchedContext(browser, { javaScriptEnabled: true });
    await admin.page.goto(journeysUrl());
    await admin.page.getByLabel('Admin token', { exact: true }).fill(ADMIN_TOKEN);
    await admin.page.getByRole('button', { name: 'Open the console' }).click();
    await form(admin.page).waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const width of [390, 1280]) {
    it(`builds password → otp by clicking at ${width} px: an outcome left unset keeps it from being saved; what is saved is exactly what was built`, async () => {
      const { page, problems } = admin;
      const name = `two-step-${width}`;
      await page.setViewportSize({ width, height: 900 });
      await openJourneys(page);
      await form(page).getByLabel(/^Journey name/).fill(name);
      const pw = await addNode(page, 'pw', 'password');
      await expect(pw.locator('.badge').textContent()).resolves.toBe('Starts here');
      const otp = await addNode(page, 'otp', 'otp');
      await leadsTo(otp, 'success').selectOption('done');

      // pw's outcome is unset: marked, and saving is refused before anything is sent.
      await expect(leadsTo(pw, 'success').getAttribute('aria-invalid')).resolves.toBe('true');
      await form(page).getByRole('button', { name: 'Save journey' }).click();
      await expect.poll(() => problem(page).textContent()).toBe('Node "pw": choose where "success" leads before saving.');
      expect((await stored(name)).status).toBe(404);
      // The unset outcome and the reason, as readable as the rest.
      await expectWellLaidOut(page, width);

      // A node added and led to, then removed: the outcome that led to it is unset again.
      await leadsTo(pw, 'success').selectOption('otp');
      const check = await addNode(page, 'check', 'risk');
      await leadsTo(otp, 'success').selectOption('check');
      await check.getByRole('button', { name: 'Remove the node check' }).click();
      await check.waitFor({ state: 'detached' });
      await expect(leadsTo(otp, 'success').inputValue()).resolves.toBe('');
      await expect(leadsTo(otp, 'success').getAttribute('aria-invalid')).resolves.toBe('true');
      await otp.getByText('Not set: choose where it leads.').waitFor();
      await leadsTo(otp, 'success').selectOption('done');

      const built = { start: 'pw', nodes: { pw: { type: 'password', next: { success: 'otp' } }, otp: { type: 'otp', next: { success: 'done' } } } };
      // The advanced view follows the fields.
      await form(page).locator('summary', { hasText: 'JSON (advanced)' }).click();
      expect(JSON.parse(await form(page).getByLabel(/^Journey JSON/).inputValue())).toEqual(built);
      await expect(form(page).locator('.journey-node h4 code').allTextContents()).resolves.toEqual(['pw', 'otp']);
      await expectWellLaidOut(page, width);

      await form(page).getByRole('button', { name: 'Save journey' }).click();
      await page.locator('#messages p').filter({ hasText: `Journey ${name} saved.` }).waitFor();
      expect(await stored(name)).toEqual({ status: 200, journey: built });
      await page.getByRole('region', { name: `Journey ${name}` }).waitFor();
      await expectWellLaidOut(page, width);
      expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
    }, 120_000);
  }

  it("loads a stored journey with a choice and a condition, and saves an outcome, fields and a node's name changed through the cards", async () => {
    const { page, problems } = admin;
    await page.setViewportSize({ width: 1280, height: 900 });
    const gate = {
      start: 'pick',
      nodes: {
        pick: { type: 'choice', options: [{ label: 'Password', next: 'pw' }, { label: 'Passkey', next: 'pk' }] },
        pw: { type: 'password', next: { success: 'cond' } },
        pk: { type: 'passkey', next: { success: 'done', unavailable: 'pw' } },
        cond: { type: 'condition', if: { client_in: ['bank'] }, next: { true: 'otp', false: 'done' } },
        otp: { type: 'otp', next: { success: 'done' } },
      },
    };
    expect((await t.admin.request('PUT', `/realms/${REALM}/journeys/gate`, gate)).statusCode).toBe(201);
    await openJourneys(page);
    await page.getByRole('button', { name: 'Edit gate', exact: true }).click();
    await expect(form(page).getByLabel(/^Journey name/).inputValue()).resolves.toBe('gate');
    // In walk order, each with its fields.
    await expect(form(page).locator('.journey-node h4 code').allTextContents()).resolves.toEqual(['pick', 'pw', 'pk', 'cond', 'otp']);
    const pick = nodeCard(page, 'pick');
    await expect(pick.getByRole('textbox', { name: 'Label of option 2' }).inputValue()).resolves.toBe('Passkey');
    await expect(pick.getByRole('combobox', { name: /^Option 2 leads to/ }).inputValue()).resolves.toBe('pk');
    const cond = nodeCard(page, 'cond');
    await expect(cond.getByRole('combobox', { name: /^What it asks/ }).inputValue()).resolves.toBe('client_in');
    await expect(cond.getByRole('textbox', { name: /^Client IDs/ }).inputValue()).resolves.toBe('bank');

    await leadsTo(cond, 'false').selectOption('otp');
    await cond.getByRole('textbox', { name: /^Client IDs/ }).fill('bank\nbroker');
    await pick.getByRole('textbox', { name: 'Label of option 2' }).fill('A passkey');
    await nodeCard(page, 'pk').getByRole('checkbox', { name: /^Enrol one when the person has none/ }).check();
    // Renamed: a taken name refused in words; a free one followed by every outcome that led to the node.
    await nodeCard(page, 'otp').getByRole('button', { name: 'Rename the node otp' }).click();
    const rename = nodeCard(page, 'otp').getByRole('group', { name: 'Rename the node otp' });
    await rename.getByRole('textbox', { name: /^New name/ }).fill('pw');
    await rename.getByRole('textbox', { name: /^New name/ }).press('Enter');
    await expect.poll(() => rename.locator('p.journey-problem').textContent()).toBe('The journey already has a node "pw".');
    await rename.getByRole('textbox', { name: /^New name/ }).fill('code');
    await rename.getByRole('textbox', { name: /^New name/ }).press('Enter');
    await nodeCard(page, 'code').waitFor();
    await expect(page.locator(':focus').getAttribute('data-key')).resolves.toBe('code/rename');
    await expect(leadsTo(cond, 'true').inputValue()).resolves.toBe('code');
    await expect(leadsTo(cond, 'false').inputValue()).resolves.toBe('code');
    await form(page).getByRole('button', { name: 'Save journey' }).click();
    await page.locator('#messages p').filter({ hasText: 'Journey gate saved.' }).waitFor();
    expect(await stored('gate')).toEqual({
      status: 200,
      journey: {
        start: 'pick',
        nodes: {
          pick: { type: 'choice', options: [{ label: 'Password', next: 'pw' }, { label: 'A passkey', next: 'pk' }] },
          pw: { type: 'password', next: { success: 'cond' } },
          pk: { type: 'passkey', next: { success: 'done', unavailable: 'pw' }, enrol: true },
          cond: { type: 'condition', if: { client_in: ['bank', 'broker'] }, next: { true: 'code', false: 'code' } },
          code: { type: 'otp', next: { success: 'done' } },
        },
      },
    });
    expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
  }, 60_000);

  it('redraws the cards from valid JSON typed in the advanced view; says why it cannot draw invalid JSON, leaves the cards and saves nothing', async () => {
    const { page, problems } = admin;
    await openJourneys(page);
    await form(page).getByLabel(/^Journey name/).fill('typed');
    await form(page).locator('summary', { hasText: 'JSON (advanced)' }).click();
    const json = form(page).getByLabel(/^Journey JSON/);
    await json.fill(JSON.stringify({ start: 'pw', nodes: { pw: { type: 'password', next: { success: 'done' } } } }));
    await nodeCard(page, 'pw').waitFor();
    await expect(leadsTo(nodeCard(page, 'pw'), 'success').inputValue()).resolves.toBe('done');
    // Retyped: the outcome both types have keeps its target; the new type's field written into the JSON.
    await nodeCard(page, 'pw').getByRole('combobox', { name: 'Node type', exact: true }).selectOption('identity_provider');
    await nodeCard(page, 'pw').getByRole('textbox', { name: /^Identity provider alias/ }).fill('corp');
    expect(JSON.parse(await json.inputValue())).toEqual({ start: 'pw', nodes: { pw: { type: 'identity_provider', provider: 'corp', next: { success: 'done' } } } });

    await json.fill('{"start": ');
    await expect.poll(() => form(page).locator('p.json-problem').textContent()).toMatch(/^The fields are unchanged: The journey is not valid JSON: /);
    await expect(form(page).locator('.journey-node h4 code').allTextContents()).resolves.toEqual(['pw']);
    await json.fill(JSON.stringify({ start: 'pw', nodes: { pw: { type: 'fingerprint' } } }));
    await expect.poll(() => form(page).locator('p.json-problem').textContent()).toBe('The fields are unchanged: Node "pw": "fingerprint" is not a node type the server knows.');
    await form(page).getByRole('button', { name: 'Save journey' }).click();
    await expect.poll(() => problem(page).textContent()).toBe('The JSON (advanced) has a mistake: Node "pw": "fingerprint" is not a node type the server knows. Correct it before saving.');
    expect((await stored('typed')).status).toBe(404);
    expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
  }, 60_000);

  it("shows the server's refusal beside the form and in the card of the node it names", async () => {
    const { page, problems } = admin;
    await openJourneys(page);
    await form(page).getByLabel(/^Journey name/).fill('code-first');
    // By the keyboard: Enter in the node's name adds it (the journey is not sent), and the focus goes to its type.
    const add = form(page).getByRole('group', { name: 'Add a node' });
    await add.getByRole('combobox', { name: 'Its type' }).selectOption('otp');
    await add.getByRole('textbox', { name: /^Node name/ }).fill('otp');
    await add.getByRole('textbox', { name: /^Node name/ }).press('Enter');
    const otp = nodeCard(page, 'otp');
    await otp.waitFor();
    await expect(page.locator(':focus').getAttribute('data-key')).resolves.toBe('otp/type');
    await expect(otp.getByRole('combobox', { name: 'Node type', exact: true }).inputValue()).resolves.toBe('otp');
    expect((await stored('code-first')).status).toBe(404);
    await leadsTo(otp, 'success').selectOption('done');
    await form(page).getByRole('button', { name: 'Save journey' }).click();
    const reason = 'node "otp": it can be reached before a password or passkey node has told who signs in';
    await expect.poll(() => problem(page).textContent()).toBe(`The server refused the journey: ${reason}`);
    await expect(problem(page).getAttribute('role')).resolves.toBe('alert');
    await expect(otp.locator('p.node-problem').textContent()).resolves.toBe(`The server refused this node: ${reason}`);
    expect((await stored('code-first')).status).toBe(404);
    expect(unexpected(problems, [400])).toEqual({ console: [], pageErrors: [], violations: [] });
    problems.console.length = 0;
  }, 60_000);

  it('speaks French when the console is in French', async () => {
    const { page, problems } = admin;
    // The console's language, as its picker keeps it; the token stays with the tab across the reload.
    await page.evaluate("localStorage.setItem('realmgate.console.locale', 'fr')");
    try {
      await page.reload();
      const store = page.getByRole('form', { name: 'Enregistrer un parcours' });
      await store.getByRole('group', { name: 'Ajouter un nœud' }).getByRole('button', { name: 'Ajouter le nœud' }).waitFor();
      await expect(store.locator('summary').textContent()).resolves.toBe('JSON (avancé)');
      await store.getByText('Aucun nœud pour l’instant : ajoutez le premier ci-dessous.').waitFor();
    } finally {
      await page.evaluate("localStorage.removeItem('realmgate.console.locale')");
    }
    expect(problems).toEqual({ console: [], pageErrors: [], violations: [] });
  }, 60_000);
});
