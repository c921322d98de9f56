/**
 * Makes the screenshots of docs/screenshots/ and its README.md again:
 *
 *     npx tsx docs/screenshots/make.ts
 *
 * It starts the server on an in-memory PGlite, with a realm "acme" (display name, a client that
 * asks for consent, a CIBA client, a person; server.ts), and visits its pages in Chromium
 * (/usr/bin/chromium, or CHROMIUM): the pages a person meets (sign-in, consent, error, account,
 * CIBA approval; person-pages.ts) at 390 and 1280 px in each language, and the admin console
 * (console.ts) at both widths, in English and partly in German, as PNG; and every page in the light and dark colour
 * schemes, measuring the contrast of each text with what is behind it
 * (test/browser/page-metrics.ts, as test/browser/layout-contrast.test.ts does), of which
 * README.md lists the lowest per page.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { type TextContrast, lowestContrast, measurePage } from '../../test/browser/page-metrics.js';
import { consoleScreenshots } from './console.js';
import { personPageScreenshots } from './person-pages.js';
import { CIBA_CLIENT, CLIENT, LANGUAGES, SCHEMES, type Server, WIDTHS, atSignIn, signIn, startServer } from './server.js';

const OUT = fileURLToPath(new URL('.', import.meta.url));

type Lowest = Map<string, Map<string, TextContrast & { where: string }>>;

/** Keeps, per page and scheme, the lowest contrast measured and where. */
const keeper = (lowest: Lowest) => (page: string, scheme: string, where: string, found: TextContrast | undefined) => {
  if (!found) throw new Error(`no text measured on ${page}`);
  const byScheme = lowest.get(page) ?? new Map();
  lowest.set(page, byScheme);
  const current = byScheme.get(scheme);
  if (!current || found.ratio < current.ratio) byScheme.set(scheme, { ...found, where });
};

/** The lowest contrast of each page, in each scheme, over the languages and widths. */
async function contrasts(browser: Browser, server: Server, lowest: Lowest): Promise<void> {
  const keep = keeper(lowest);
  for (const scheme of SCHEMES) {
    for (const language of LANGUAGES) {
      for (const width of WIDTHS) {
        const { context, page } = await atSignIn(browser, server, language, scheme, width);
        const measure = async (name: string) => keep(name, scheme, `${language}, ${width} px`, lowestContrast(await measurePage(page)));
        await measure('sign-in');
        await signIn(page, language);
        await measure('consent');
        for (const [name, path] of [
          ['device', '/device/user'],
          ['account', '/account'],
          ['register', '/register'],
          ['reset', '/reset'],
          ['ciba-approval', '/bc-approve'],
          ['sign-out', '/connect/endSession'],
          ['error', '/authorize?client_id=unknown'],
        ] as const) {
          await page.goto(`${server.issuer}${path}`);
          await measure(name);
        }
        await context.close();
      }
    }
  }
}

/** Links to the widths of one page in one language (or of a console view), "390 px · 1280 px". */
const links = (files: readonly string[], prefix: string) =>
  files
    .filter((file) => file.startsWith(prefix) && /^-\d+\.png$/.test(file.slice(prefix.length)))
    .map((file) => `[${file.slice(prefix.length + 1, -4)} px](${file})`)
    .join(' · ');

/** The names of the pages (or views) in `files`, in the order they were taken. */
const namesOf = (files: readonly string[], suffix: RegExp) => [...new Set(files.map((file) => file.replace(suffix, '')))];

function readme(files: readonly string[], consoleFiles: readonly string[], lowest: Lowest): string {
  const figure = (found: (TextContrast & { where: string }) | undefined) =>
    found ? `${found.ratio.toFixed(2)}:1 (${found.element}, ${found.color} on ${found.background}; ${found.where})` : '';
  const rows = [...lowest].map(([page, byScheme]) => `| ${page} | ${figure(byScheme.get('light'))} | ${figure(byScheme.get('dark'))} |`);
  const pages = namesOf(files, /-[a-z]{2}-\d+\.png$/).map((name) => `| ${name} | ${LANGUAGES.map((language) => links(files, `${name}-${language}`)).join(' | ')} |`);
  const views = namesOf(consoleFiles, /-\d+\.png$/).map((name) => `| ${name.replace(/^console-/, '')} | ${links(consoleFiles, name)} |`);
  return `# Screenshots

The pages a person meets in a realm ("Acme Corp", its client "${CLIENT.name}", the CIBA client
"${CIBA_CLIENT.name}"), in each language, and the admin console, at a phone's width
(390 px) and a desktop's (1280 px), in the light colour scheme.
\`npx tsx docs/screenshots/make.ts\` makes them, and this page, again.

The error page is the one a spoiled consent form leads to: the way back to the application, and
the reference that the log carries. The account page is that of the person signed in; the
approval page shows a request of the CIBA client waiting for them.

| Page | ${LANGUAGES.join(' | ')} |
|---|${LANGUAGES.map(() => '---|').join('')}
${pages.join('\n')}

## Admin console

Signed in with the admin token: the realm's settings (the first sections, then the tokens
section), a client just made (its secret shown once, then its integration snippets), the client
opened at its own URL, a person's page, the journey editor, the realm's own texts in German, and
the settings with the console switched to German (settings-de).

| View | Widths |
|---|---|
${views.join('\n')}

## Contrast

The lowest contrast ratio of any text with what is behind it, per page (over the three languages)
and per view of the console ("console: …"), at 390 and 1280 px (WCAG AA asks 4.5:1, 3:1 for large text), measured in Chromium as
\`test/browser/layout-contrast.test.ts\` measures it; the element, its colour and its background:

| Page | Light scheme | Dark scheme |
|---|---|---|
${rows.join('\n')}
`;
}

async function main(): Promise<void> {
  const server = await startServer();
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--font-render-hinting=none'],
  });
  try {
    const files = await personPageScreenshots(browser, server, OUT);
    const lowest: Lowest = new Map();
    await contrasts(browser, server, lowest);
    const consoleFiles = await consoleScreenshots(browser, server, OUT, keeper(lowest));
    writeFileSync(`${OUT}README.md`, readme(files, consoleFiles, lowest));
    console.info(`wrote ${files.length + consoleFiles.length} screenshots and README.md to ${OUT}`);
  } finally {
    await browser.close();
    await server.app.close();
  }
}

await main();
