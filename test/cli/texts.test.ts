import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestApp, startTestApp } from '../support/app.js';
import { buildOnce } from '../support/process.js';
import { cliOk, runCli, tableRows } from './support.js';

/** `realmgate texts keys|show|put|set|delete` against a listening server (CONTRACT.md §16). */
describe('realmgate texts commands', () => {
  let t: TestApp;
  let env: Record<string, string>;
  let dir: string;
  const cli = (args: string[], input?: string) => cliOk(args, { env, ...(input === undefined ? {} : { input }) });

  beforeAll(async () => {
    [t] = await Promise.all([startTestApp({ listen: true }), buildOnce()]);
    env = { REALMGATE_URL: t.baseUrl, REALMGATE_ADMIN_TOKEN: ADMIN_TOKEN };
    dir = await mkdtemp(join(tmpdir(), 'realmgate-texts-'));
    await t.admin.createRealm('laden');
  });

  afterAll(async () => {
    await t?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('keys lists the texts with their shipped words in a language, placeholders written {0}', async () => {
    const rows = tableRows((await cli(['texts', 'keys', 'de'])).stdout);
    expect(rows).toContainEqual({ KEY: 'signIn.username', TEXT: 'Benutzername' });
    const json = JSON.parse((await cli(['texts', 'keys', '--json'])).stdout) as Record<string, string>;
    expect(json['mail.passwordReset.subject']).toBe('Reset your {0} password');
    expect(json).not.toHaveProperty('lang');
    // A count is listed once per plural category of the language, with {0} for the number; a length of time once, with {0} for it in words.
    const french = JSON.parse((await cli(['texts', 'keys', 'fr', '--json'])).stdout) as Record<string, string>;
    expect(Object.keys(french).filter((key) => key.startsWith('account.recoveryCodes.left'))).toEqual(['account.recoveryCodes.left#one', 'account.recoveryCodes.left#many', 'account.recoveryCodes.left#other']);
    expect(french['account.recoveryCodes.left#one']).toMatch(/^Il vous reste \{0\} code de récupération inutilisé\./);
    expect(json['signIn.lockedOut#other']).toBe('Too many failed sign-in attempts. Try again in {0} minutes.');
    expect(json['mail.expiry']).toBe('The link works once, within {0}.');
  });

  it('put replaces from a file and key=text arguments, set changes some, show prints them, delete returns to the shipped ones', async () => {
    const file = join(dir, 'de.json');
    await writeFile(file, JSON.stringify({ 'signIn.username': 'Kundennummer', 'signIn.password': 'Kennwort' }));
    const put = await cli(['texts', 'put', 'laden', 'de', '--file', file, 'mail.passwordReset.subject=Neues Passwort für {0}', '--json']);
    const stored = { 'mail.passwordReset.subject': 'Neues Passwort für {0}', 'signIn.password': 'Kennwort', 'signIn.username': 'Kundennummer' };
    expect(JSON.parse(put.stdout)).toEqual(stored);

    await cli(['texts', 'set', 'laden', 'de', 'signIn.password=Passwort=Schlüssel']);
    const shown = JSON.parse((await cli(['texts', 'show', 'laden', 'de', '--json'])).stdout);
    expect(shown).toEqual({ ...stored, 'signIn.password': 'Passwort=Schlüssel' });
    expect((await cli(['texts', 'show', 'laden', 'de'])).stdout).toMatch(/^signIn\.username\s+Kundennummer$/m);

    expect((await cli(['texts', 'delete', 'laden', 'de'])).stdout).toBe('laden shows the shipped texts in de again.\n');
    expect((await t.admin.request('GET', '/realms/laden/texts/de')).json()).toEqual({});
  });

  it('passes on the server\u2019s refusal of an unknown key, and refuses a language it does not know before asking', async () => {
    const unknown = await runCli(['texts', 'put', 'laden', 'fr', 'signIn.nope=x'], { env });
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('signIn.nope: is not a text of the pages or mails');
    const language = await runCli(['texts', 'show', 'laden', 'it'], { env });
    expect(language.code).not.toBe(0);
    expect(language.stderr).toContain('the language must be one of en, de, fr');
  });
});
