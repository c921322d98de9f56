import { readFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/app.js';
import { type Exit, PROJECT_ROOT, ServerProcess, buildOnce, serverEnv, stopAll } from '../support/process.js';
import { testStoreKind } from '../support/store.js';

/**
 * docs/tour.sh, the five-minute tour of the README, run as a newcomer runs it: bash, curl and
 * the built server, nothing of the test harness. It needs no database of its own (the embedded
 * store), so it runs in the PGlite project only.
 */

const read = (file: string): string => readFileSync(join(PROJECT_ROOT, file), 'utf8');

/** The command lines of the README's ```sh blocks under `heading`, comments and blank lines left out. */
function readmeCommands(heading: string): string[] {
  const readme = read('README.md');
  const start = readme.indexOf(`\n## ${heading}\n`);
  expect(start, `README.md has a section "${heading}"`).toBeGreaterThan(-1);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)]
    .flatMap((block) => block[1]!.split('\n'))
    .map((line) => line.replace(/\s+#\s.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** The line of the output that starts with `label`, after it. */
function after(output: string, label: string): string {
  const line = output.split('\n').find((candidate) => candidate.startsWith(label));
  expect(line, `a line starting "${label}" in:\n${output}`).toBeDefined();
  return line!.slice(label.length);
}

describe.skipIf(testStoreKind() !== 'pglite')('docs/tour.sh', () => {
  let port: number;
  let tour: ServerProcess;
  let exit: Exit;

  beforeAll(async () => {
    await buildOnce();
    port = await freePort();
    // The script calls `node`: the one running this test, as CI's PATH gives it.
    const path = [dirname(process.execPath), process.env.PATH].join(delimiter);
    tour = new ServerProcess('bash', ['docs/tour.sh'], serverEnv({ PORT: String(port), PATH: path }));
    exit = await tour.waitForExit(55_000);
  }, 60_000);

  afterAll(stopAll);

  it('runs to its end: exit 0, the server stopped gracefully', () => {
    expect(exit, tour.output).toEqual({ code: 0, signal: null });
    expect(tour.stdout).toMatch(/^\{"status":"ready"\}$/m);
    expect(tour.stdout).toMatch(/^realmgate stopped, exit 0$/m);
  });

  it("creates a realm whose issuer is under the server's BASE_URL, and a user", () => {
    expect(after(tour.stdout, 'realm acme, issuer ')).toBe(`http://localhost:${port}/oauth2/acme`);
    expect(tour.stdout).toContain('{"name":"orders:read","description":"Read your orders"}');
    expect(tour.stdout).toMatch(/^\{"username":"alice","sub":"[0-9a-f-]{36}"/m);
  });

  it("introspects the client-credentials token as active, the service's own, with the scope asked", () => {
    expect(JSON.parse(after(tour.stdout, 'introspection: '))).toMatchObject({
      active: true,
      client_id: 'shop',
      sub: 'shop',
      scope: 'orders:read',
      token_type: 'Bearer',
      iss: `http://localhost:${port}/oauth2/acme`,
    });
  });

  it('signs alice in through the pages: a code back at the client with state and iss, exchanged for tokens; UserInfo names her', () => {
    const callback = new URL(after(tour.stdout, 'back at the client: '));
    expect(callback.origin + callback.pathname).toBe('http://localhost:3000/callback');
    expect(callback.searchParams.get('code')).toMatch(/^[\w-]{43}$/);
    expect(callback.searchParams.get('state')).toBe('xyz');
    expect(callback.searchParams.get('iss')).toBe(`http://localhost:${port}/oauth2/acme`);

    const tokens = JSON.parse(after(tour.stdout, 'tokens: ')) as Record<string, unknown>;
    expect(tokens).toMatchObject({ token_type: 'Bearer', scope: 'openid profile email' });
    for (const kind of ['access_token', 'refresh_token', 'id_token']) expect(tokens[kind], kind).toEqual(expect.any(String));

    const sub = /^\{"username":"alice","sub":"([0-9a-f-]{36})"/m.exec(tour.stdout)![1];
    expect(JSON.parse(after(tour.stdout, "the ID token's claims: "))).toMatchObject({
      iss: `http://localhost:${port}/oauth2/acme`,
      sub,
      aud: 'shop',
      name: 'Alice Liddell',
      amr: ['pwd'],
    });
    expect(JSON.parse(after(tour.stdout, 'userinfo: '))).toMatchObject({ sub, name: 'Alice Liddell', email: 'alice@example.com' });
  });

  it("is what the README's quick start and tour show: each of their commands is a line of the script", () => {
    const script = new Set(read('docs/tour.sh').split('\n').map((line) => line.trim()));
    const commands = [...readmeCommands('Quick start'), ...readmeCommands('A five-minute tour')];
    expect(commands.length).toBeGreaterThan(20);
    for (const command of commands.filter((line) => line !== 'npm install')) expect(script, command).toContain(command);
  });
});
