/**
 * The pages a person meets, in each language at a phone's and a desktop's width: sign-in,
 * consent, the error page (its way back to the application and its reference), the account page
 * and the CIBA approval page, as PNG.
 */
import type { Browser, Page } from 'playwright-core';
import { LANGUAGES, type Language, type Server, WIDTHS, atSignIn, signIn } from './server.js';

/**
 * The consent form sent with its CSRF token spoiled: the flow cannot go on, and the error page
 * offers the way back to the client whose request it was, with a reference to quote.
 */
async function toErrorPage(page: Page): Promise<void> {
  await page.locator('form input[name=csrf]').first().evaluate((input) => input.setAttribute('value', 'spoiled'));
  await page.locator('form button[name=decision][value=deny]').click();
  await page.waitForSelector('p.reference');
}

export async function personPageScreenshots(browser: Browser, server: Server, out: string): Promise<string[]> {
  const files: string[] = [];
  /** A short page whole; a long one as far as the window shows it, to keep the PNG small. */
  const take = async (page: Page, name: string, language: Language, width: number, fullPage = true) => {
    const file = `${name}-${language}-${width}.png`;
    await page.screenshot({ path: `${out}${file}`, fullPage });
    files.push(file);
  };
  // One request waits for the person throughout: the approval page shows it each time.
  await server.askApproval();
  for (const language of LANGUAGES) {
    for (const width of WIDTHS) {
      const { context, page } = await atSignIn(browser, server, language, 'light', width);
      await take(page, 'sign-in', language, width);
      await signIn(page, language);
      await take(page, 'consent', language, width);
      await toErrorPage(page);
      await take(page, 'error', language, width);
      await page.goto(`${server.issuer}/account`);
      // The page's script writes the sessions' times in the browser's zone and language.
      await page.locator('li.session time').first().waitFor();
      await take(page, 'account', language, width, width > 390);
      await page.goto(`${server.issuer}/bc-approve`);
      await page.locator('section.request').first().waitFor();
      await take(page, 'ciba-approval', language, width);
      // Signed out everywhere, so that the next account page lists the one session of its browser.
      await page.goto(`${server.issuer}/account`);
      await Promise.all([page.waitForResponse((response) => response.request().method() === 'POST'), page.locator('ul.sessions + form button').click()]);
      await context.close();
    }
  }
  return files;
}
