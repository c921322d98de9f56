import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopAll } from '../support/process.js';
import { testStoreKind } from '../support/store.js';
import { type ScriptRun, after, commandLines, readDoc, runScript, section, shellBlocks } from './support.js';

/**
 * docs/tour.sh, the quick start and five-minute tour of the README, run as a newcomer runs it.
 * It needs no database of its own (the embedded store), so it runs in the PGlite project only.
 */
describe.skipIf(testStoreKind() !== 'pglite')('docs/tour.sh', () => {
  let run: ScriptRun;
  let issuer: string;

  beforeAll(async () => {
    run = await runScript(['docs/tour.sh'], 55_000);
    issuer = `http://localhost:${run.port}/oauth2/acme`;
  }, 60_000);

  afterAll(stopAll);

  it('runs to its end: exit 0, the server stopped gracefully', () => {
    expect(run.exit, run.output).toEqual({ code: 0, signal: null });
    expect(run.stdout).toMatch(/^\{"status":"ready"\}$/m);
    expect(run.stdout).toMatch(/^realmgate stopped, exit 0$/m);
  });

  it("creates a realm whose issuer is under the server's BASE_URL, a scope and a user", () => {
    expect(after(run.stdout, 'realm acme, issuer ')).toBe(issuer);
    expect(run.stdout).toContain('{"name":"orders:read","description":"Read your orders"}');
    expect(run.stdout).toMatch(/^\{"username":"alice","sub":"[0-9a-f-]{36}"/m);
  });

  it("introspects the client-credentials token as active, the service's own, with the scope asked", () => {
    expect(JSON.parse(after(run.stdout, 'introspection: '))).toMatchObject({
      active: true,
      client_id: 'shop',
      sub: 'shop',
      scope: 'orders:read',
      token_type: 'Bearer',
      iss: issuer,
    });
  });

  it('signs alice in through the pages: a code back at the client with state and iss, exchanged for tokens; UserInfo names her', () => {
    const callback = new URL(after(run.stdout, 'back at the client: '));
    expect(callback.origin + callback.pathname).toBe('http://localhost:3000/callback');
    expect(callback.searchParams.get('code')).toMatch(/^[\w-]{43}$/);
    expect(callback.searchParams.get('state')).toBe('xyz');
    expect(callback.searchParams.get('iss')).toBe(issuer);

    const tokens = JSON.parse(after(run.stdout, 'tokens: ')) as Record<string, unknown>;
    expect(tokens).toMatchObject({ token_type: 'Bearer', scope: 'openid profile email' });
    for (const kind of ['access_token', 'refresh_token', 'id_token']) expect(tokens[kind], kind).toEqual(expect.any(String));

    const sub = /^\{"username":"alice","sub":"([0-9a-f-]{36})"/m.exec(run.stdout)![1];
    expect(JSON.parse(after(run.stdout, "the ID token's claims: "))).toMatchObject({ iss: issuer, sub, aud: 'shop', name: 'Alice Liddell', amr: ['pwd'] });
    expect(JSON.parse(after(run.stdout, 'userinfo: '))).toMatchObject({ sub, name: 'Alice Liddell', email: 'alice@example.com' });
  });

  it("is what the README's quick start and tour show: each of their commands is a line of the script", () => {
    const script = new Set(readDoc('docs/tour.sh').split('\n').map((line) => line.trim()));
    const readme = ['Quick start', 'A five-minute tour'].flatMap((heading) => shellBlocks(section('README.md', heading)));
    const commands = readme.flatMap(commandLines).filter((line) => line !== 'npm install');
    expect(commands.length).toBeGreaterThan(20);
    for (const command of commands) expect(script, command).toContain(command);
  });
});
