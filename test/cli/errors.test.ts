import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestApp, freePort, startTestApp } from '../support/app.js';
import { buildOnce } from '../support/process.js';
import { type CliResult, runCli } from './support.js';

/**
 * What a shell user gets when something is wrong: exit 2 and a usage message for a wrong
 * command line, exit 1 and one line naming the cause when the server refuses or cannot be
 * reached. The admin token never appears in anything printed.
 */
describe('realmgate exit codes and messages', () => {
  let t: TestApp;
  let env: Record<string, string>;

  beforeAll(async () => {
    [t] = await Promise.all([startTestApp({ listen: true }), buildOnce()]);
    env = { REALMGATE_URL: t.baseUrl, REALMGATE_ADMIN_TOKEN: ADMIN_TOKEN };
  });

  afterAll(() => t?.close());

  const expectNoToken = (...results: CliResult[]) => {
    for (const result of results) expect(result.stdout + result.stderr).not.toContain(ADMIN_TOKEN);
  };

  it('help and version exit 0; help names the variables, never their values', async () => {
    const [help, realmHelp, version] = await Promise.all([
      runCli(['--help'], { env }),
      runCli(['realm', 'set', '--help'], { env }),
      runCli(['--version'], { env }),
    ]);
    expect(help.code).toBe(0);
    for (const command of ['start', 'migrate', 'realm', 'client', 'user', 'keys', 'token']) expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    expect(realmHelp.code).toBe(0);
    expect(realmHelp.stdout).toContain('REALMGATE_ADMIN_TOKEN');
    expect(realmHelp.stdout).toContain('REALMGATE_URL');
    expect(version).toMatchObject({ code: 0, stdout: '0.1.0\n' });
    expectNoToken(help, realmHelp, version);
  });

  it('a wrong command line exits 2 with a usage message, before any request', async () => {
    const cases: Array<[string[], RegExp]> = [
      [[], /Usage: realmgate/],
      [['frobnicate'], /unknown command 'frobnicate'/],
      [['realm'], /Usage: realmgate realm/],
      [['realm', 'set', 'root'], /missing required argument/],
      [['realm', 'set', 'root', 'access_token_lifetime'], /expected setting=value/],
      [['realm', 'create', 'x', 'a=1', 'a=2'], /a is given twice/],
      [['realm', 'list', '--frob'], /unknown option '--frob'/],
      [['token', 'introspect', 'root', '-98m7ItHc', '--client-id', 'a', '--client-secret', 'b'], /unknown option '-98m7ItHc'[\s\S]*goes after --/],
      [['client', 'create', 'root', '--client-id', 'a', 'client_id=b'], /client_id is given both/],
      [['user', 'create', 'root', 'carol'], /a password is needed/],
      [['token', 'introspect', 'root', 'x', '--client-id', 'a', '--client-secret', 'b', '--client-auth', 'digest'], /Allowed choices are basic, post/],
      [['token', 'introspect', 'root', 'x'], /give --client-id and --client-secret/],
      [['realm', 'list', '--url', 'ftp://example.com'], /--url: expected an http\(s\) URL/],
      [['realm', 'list', '--url', 'http://admin:pw@127.0.0.1:9000'], /credentials do not go in the URL/],
      [['migrate', '--database-url', 'mysql://db/x'], /DATABASE_URL: expected a postgres:\/\/ URL/],
      [['migrate', '--database-url', 'postgres://db/x', '--data-dir', '/tmp/x'], /not both/],
    ];
    const results = await Promise.all(cases.map(([args]) => runCli(args, { env })));
    results.forEach((result, i) => {
      const [args, message] = cases[i]!;
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
      expect(result.stderr).toMatch(message);
      expect(result.stdout).toBe('');
    });
    expect(results[1]!.stderr).toContain('(add --help for usage)');
    expectNoToken(...results);
  });

  it('a mistyped option gets Commander\'s message and its pointer to --help, not the hint about values that begin with a dash', async () => {
    const [bogus, short] = await Promise.all([runCli(['client', 'create', 'acme', '--bogus'], { env }), runCli(['realm', 'list', '-q'], { env })]);
    for (const [result, option] of [[bogus, '--bogus'], [short, '-q']] as const) {
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`unknown option '${option}'`);
      expect(result.stderr).toContain('(add --help for usage)');
      expect(result.stderr).not.toMatch(/token|goes after --/);
      expect(result.stdout).toBe('');
    }
  });

  it('no admin token: exit 2 naming the variable; ADMIN_TOKEN, the server\'s own, also serves', async () => {
    const [none, fallback] = await Promise.all([
      runCli(['realm', 'list'], { env: { REALMGATE_URL: t.baseUrl } }),
      runCli(['realm', 'list'], { env: { REALMGATE_URL: t.baseUrl, ADMIN_TOKEN } }),
    ]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/an admin token is needed: set REALMGATE_ADMIN_TOKEN/);
    expect(fallback.code).toBe(0);
    expect(fallback.stdout).toMatch(/^root\s/m);
  });

  it('a refusal of the server exits 1 with its error and error_description on stderr', async () => {
    const [unknownRealm, unknownClient, badSetting, conflict] = await Promise.all([
      runCli(['realm', 'show', 'nope'], { env }),
      runCli(['client', 'rotate-secret', 'root', 'nobody'], { env }),
      runCli(['realm', 'set', 'root', 'access_token_lifetime=-5'], { env }),
      runCli(['realm', 'create', 'root'], { env }),
    ]);
    expect(unknownRealm).toMatchObject({ code: 1, stdout: '', stderr: 'realmgate: not_found: no such realm\n' });
    expect(unknownClient).toMatchObject({ code: 1, stdout: '', stderr: 'realmgate: not_found: no such client\n' });
    expect(badSetting.code).toBe(1);
    expect(badSetting.stderr).toMatch(/^realmgate: invalid_request: .*access_token_lifetime/);
    expect(conflict).toMatchObject({ code: 1, stderr: 'realmgate: conflict: a realm with this name exists\n' });
  });

  it('a wrong admin token exits 1 saying so, without printing either token', async () => {
    const wrong = 'wrong-admin-token-9876543210';
    const [fromFlag, fromEnv] = await Promise.all([
      runCli(['realm', 'list', '--token', wrong], { env }),
      runCli(['client', 'list', 'root', '--json'], { env: { ...env, REALMGATE_ADMIN_TOKEN: wrong } }),
    ]);
    for (const result of [fromFlag, fromEnv]) {
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^realmgate: the admin token was refused; check REALMGATE_ADMIN_TOKEN or --token \(invalid_token: /);
      expect(result.stderr).not.toContain(wrong);
    }
    expectNoToken(fromFlag, fromEnv);
  });

  it('an unreachable server exits 1 naming the address and how to set it', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const result = await runCli(['realm', 'list'], { env: { ...env, REALMGATE_URL: closed } });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`realmgate: cannot reach the server at ${closed} (ECONNREFUSED): is it running? Set its address with --url or REALMGATE_URL\n`);
    expectNoToken(result);
  });

  it('an address under which no admin API answers exits 1 with the answer', async () => {
    const result = await runCli(['realm', 'list', '--url', `${t.baseUrl}/elsewhere`], { env });
    expect(result).toMatchObject({ code: 1, stdout: '', stderr: 'realmgate: not_found: no such resource\n' });
  });
});
