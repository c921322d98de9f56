/**
 * The admin console at a phone's and a desktop's width, signed in with the admin token: the
 * realm's settings in their sections (the page's top, then the tokens section), a client just made
 * with its secret and its integration snippets, then opened by its own URL, a person's page, the
 * journey editor, the realm's texts in German, and the settings again with the console in German,
 * as PNG; and the lowest contrast of each view in the light and the dark scheme.
 */
import type { Browser, Locator } from 'playwright-core';
import { type TextContrast, lowestContrast, measurePage } from '../../test/browser/page-metrics.js';
import { ADMIN_TOKEN, PERSON, REALM, SCHEMES, type Server, WIDTHS } from './server.js';

/** The window's height: a long view is shown as far as it reaches, to keep the PNG small. */
const HEIGHT = 1100;

/** Told the lowest contrast of each view, in each scheme, and where it was measured. */
type Measured = (view: string, scheme: string, where: string, found: TextContrast | undefined) => void;

export async function consoleScreenshots(browser: Browser, server: Server, out: string, measured: Measured): Promise<string[]> {
  const files: string[] = [];
  const consoleUrl = (hash: string) => `${server.baseUrl}/admin/console#/realms/${REALM}/${hash}`;
  for (const width of WIDTHS) {
    const context = await browser.newContext({ viewport: { width, height: HEIGHT }, colorScheme: 'light', locale: 'en-GB', timezoneId: 'Europe/Paris' });
    const page = await context.newPage();
    /** The window with `top` scrolled to its top (or the page's top), once the calls of the page have ended. */
    const take = async (name: string, top?: Locator) => {
      await page.locator('main :disabled').first().waitFor({ state: 'detached' });
      if (top) await top.evaluate((element) => element.scrollIntoView({ block: 'start' }));
      const file = `console-${name}-${width}.png`;
      await page.screenshot({ path: `${out}${file}` });
      files.push(file);
      for (const scheme of SCHEMES) {
        await page.emulateMedia({ colorScheme: scheme });
        measured(`console: ${name}`, scheme, `${width} px`, lowestContrast(await measurePage(page)));
      }
      await page.emulateMedia({ colorScheme: 'light' });
    };
    await page.goto(consoleUrl('settings'));
    await page.getByLabel('Admin token', { exact: true }).fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Open the console' }).click();
    const settings = page.getByRole('form', { name: 'Realm settings' });
    await settings.waitFor();
    await take('settings');
    await take('settings-tokens', settings.getByRole('region', { name: 'Tokens', exact: true }));

    const clientId = `reports-${width}`;
    await page.goto(consoleUrl('clients'));
    const create = page.getByRole('form', { name: 'New client' });
    await create.getByRole('textbox', { name: /^Client ID(?! there)/ }).fill(clientId);
    await create.getByRole('textbox', { name: 'Name', exact: true }).fill('Quarterly Reports');
    await create.getByRole('textbox', { name: /^Redirect URIs/ }).fill('https://reports.acme.example/callback');
    await create.getByRole('button', { name: 'Create client' }).click();
    const secret = page.getByRole('region', { name: `Client secret of ${clientId}` });
    await secret.waitFor();
    await take('client-created', secret);
    await take('client-snippets', page.getByRole('region', { name: `Connect ${clientId}` }));
    await page.goto(consoleUrl(`clients/${clientId}`));
    const edit = page.getByRole('form', { name: `Edit client ${clientId}` });
    await edit.waitFor();
    await take('client', edit);

    await page.goto(consoleUrl(`users/${PERSON.username}`));
    const person = page.getByRole('region', { name: `User ${PERSON.username}` });
    await person.waitFor();
    await take('user', person);

    await page.goto(consoleUrl('journeys'));
    const journey = page.getByRole('form', { name: 'Store a journey' });
    await journey.waitFor();
    await page.getByRole('button', { name: 'Edit default' }).click();
    await journey.getByRole('region', { name: 'Node password' }).waitFor();
    await take('journeys', journey);

    await page.goto(consoleUrl('texts/de'));
    const texts = page.getByRole('form', { name: 'Texts in Deutsch' });
    await texts.waitFor();
    await take('texts', texts);

    await page.goto(consoleUrl('settings'));
    await settings.waitFor();
    await page.locator('select[name=locale]').selectOption('de');
    await page.getByRole('form', { name: 'Realmeinstellungen' }).waitFor();
    await take('settings-de');
    await context.close();
  }
  return files;
}

