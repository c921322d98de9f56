import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, posix } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { readMigrations } from '../../src/store/migrate.js';
import { type TestApp, freePort, startTestApp } from '../support/app.js';
import { PROJECT_ROOT } from '../support/process.js';
import { type YamlValue, interpolate, parseComposeYaml } from './compose-yaml.js';
import { type Stage, commandWords, copyParts, envPairs, instructionsOf, parseDockerfile } from './dockerfile.js';

/**
 * The Dockerfile and docker-compose.yml agree with the code and the contract, read without
 * Docker: the port, the variables, the health checks (run here against a listening server),
 * what the image copies and runs, and its user.
 */

const read = (file: string): string => readFileSync(join(PROJECT_ROOT, file), 'utf8');
const stages = parseDockerfile(read('Dockerfile'));
const runtime = stages.at(-1)!;
const build = stages.find((stage) => stage.name === 'build')!;
const compose = parseComposeYaml(read('docker-compose.yml')) as { [key: string]: YamlValue };
const services = compose.services as { [name: string]: { [key: string]: YamlValue } };
const realmgate = services.realmgate!;
const composeEnv = realmgate.environment as { [name: string]: string };
const packageJson = JSON.parse(read('package.json')) as { scripts: Record<string, string>; bin: Record<string, string> };
const buildConfig = JSON.parse(read('tsconfig.build.json')) as { compilerOptions: { rootDir: string; outDir: string } };

/** Node's own variable, and the `realmgate` command's (for `docker compose exec`): not the server's configuration. */
const NOT_REALMGATE = new Set(['NODE_ENV', 'REALMGATE_URL']);

function runtimeEnv(): Record<string, string> {
  return Object.fromEntries(instructionsOf(runtime, 'ENV').flatMap((i) => envPairs(i.args)));
}

const workdir = (stage: Stage): string => instructionsOf(stage, 'WORKDIR').at(-1)!.args;

/** Where each COPY of a stage puts each of its sources, as a path below its WORKDIR. */
function copiedPaths(stage: Stage): Array<{ from: string | undefined; source: string; path: string }> {
  const root = workdir(stage);
  return instructionsOf(stage, 'COPY').flatMap((i) => {
    const { flags, sources, destination } = copyParts(i.args);
    const intoDirectory = destination.endsWith('/') || destination === '.' || sources.length > 1;
    return sources.map((source) => ({
      from: flags.from,
      source,
      path: posix.relative(root, posix.resolve(root, intoDirectory ? posix.join(destination, posix.basename(source)) : destination)),
    }));
  });
}

/** The variables src/config.ts reads: the keys of its EnvSchema. */
function configVariables(): Set<string> {
  const source = read('src/config.ts');
  const schema = /const EnvSchema = z\.object\(\{([\s\S]*?)\n\}\);/.exec(source)![1]!;
  return new Set([...schema.matchAll(/^ {2}([A-Z][A-Z0-9_]*):/gm)].map((match) => match[1]!));
}

/** The variable names of the first table after `heading` in a markdown document. */
function tableVariables(markdown: string, heading: RegExp): Set<string> {
  const lines = markdown.slice(markdown.search(heading)).split('\n');
  const start = lines.findIndex((line) => line.startsWith('|'));
  const end = lines.findIndex((line, i) => i > start && !line.startsWith('|'));
  const rows = lines.slice(start, end === -1 ? undefined : end).filter((line) => line.startsWith('| `'));
  return new Set(rows.flatMap((row) => [...row.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1]!)));
}

const CONTRACT = join(PROJECT_ROOT, '..', 'shared', 'CONTRACT.md');

/** Runs a health check's `node -e` script as the container would, with PORT set; its exit code. */
function runHealthCheck(words: string[], port: number): Promise<number | null> {
  const [node, ...args] = words;
  expect(node).toBe('node');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH, PORT: String(port) }, stdio: 'ignore' });
    child.once('error', reject);
    child.once('close', resolve);
  });
}

describe('Dockerfile', () => {
  it('builds in a stage of its own: npm ci compiles the resource-server workspace, then src/ with the build tsconfig, and writes the initdb copy (the prepare script)', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const copied = copiedPaths(build).map((copy) => copy.source);
    for (const file of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'src', 'packages']) expect(copied).toContain(file);
    expect(instructionsOf(build, 'RUN').map((i) => i.args).join('\n')).toMatch(/\bnpm ci\b/);
    expect(packageJson.scripts.prepare).toBe('npm run build');
    // The server imports the workspace package (packages/resource-server), built first; the
    // browser programs are bundled with esbuild (a development dependency, present in this stage
    // only) and the copy of PGlite's initdb cluster written into dist/, which the runtime stage
    // takes whole, beside packages/.
    expect(packageJson.scripts.build).toBe('npm run build -w @realmgate/resource-server && tsc -p tsconfig.build.json && node dist/http/browser-bundle.js && node dist/store/pglite-initdb.js');
    expect(copiedPaths(runtime).map((copy) => copy.source)).toEqual(expect.arrayContaining(['/app/dist', '/app/packages']));
    expect(buildConfig.compilerOptions).toMatchObject({ rootDir: 'src', outDir: 'dist' });
    // Nothing the build needs is kept out of the context.
    const ignored = read('.dockerignore').split('\n').map((line) => line.trim());
    for (const needed of [...copied, 'migrations']) expect(ignored).not.toContain(needed);
  });

  it('runs what the build produces, as npm start does; the realmgate command is the built CLI', () => {
    const cmd = instructionsOf(runtime, 'CMD');
    expect(cmd).toHaveLength(1);
    const { exec, words } = commandWords(cmd[0]!.args);
    expect(exec).toBe(true); // so that node is PID 1 and gets SIGTERM
    expect(words).toEqual(['node', 'dist/server.js']);
    expect(packageJson.scripts.start).toBe('node dist/server.js');
    const sourceOf = (built: string) => built.replace(/^dist\//, `${buildConfig.compilerOptions.rootDir}/`).replace(/\.js$/, '.ts');
    expect(existsSync(join(PROJECT_ROOT, sourceOf(words[1]!)))).toBe(true);

    const link = instructionsOf(runtime, 'RUN').map((i) => /ln -s (\S+) (\S+)/.exec(i.args)).find(Boolean);
    expect(link?.[2]).toBe('/usr/local/bin/realmgate');
    const cliTarget = posix.relative(workdir(runtime), link![1]!);
    expect(`./${cliTarget}`).toBe(packageJson.bin.realmgate);
    expect(instructionsOf(build, 'RUN').map((i) => i.args).join('\n')).toContain(`chmod +x ${cliTarget}`);
    expect(read(sourceOf(cliTarget)).startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it('copies the compiled code, its production dependencies, and every file the code reads beside itself (migrations/, package.json)', () => {
    const copies = copiedPaths(runtime);
    const fromBuild = (path: string) => copies.find((copy) => copy.path === path && copy.from === 'build');
    expect(fromBuild(buildConfig.compilerOptions.outDir)?.source).toBe(`${workdir(build)}/${buildConfig.compilerOptions.outDir}`);
    expect(fromBuild('node_modules')).toBeDefined();
    // The image keeps the repository's layout below WORKDIR, so that paths relative to the code resolve alike.
    for (const copy of copies) expect(copy.path).toBe(copy.from === undefined ? copy.source : posix.relative(workdir(build), copy.source));

    // Each `new URL('…', import.meta.url)` of src/ names, from dist/, a file or directory the image holds.
    const inImage = new Set(copies.map((copy) => copy.path));
    const readBeside: string[] = [];
    const visit = (dir: string): void => {
      for (const entry of readdirSync(join(PROJECT_ROOT, dir), { withFileTypes: true })) {
        const path = posix.join(dir, entry.name);
        if (entry.isDirectory()) visit(path);
        else if (path.endsWith('.ts')) {
          for (const match of read(path).matchAll(/new URL\('([^']+)', import\.meta\.url\)/g)) {
            const built = posix.join(buildConfig.compilerOptions.outDir, posix.relative('src', posix.dirname(path)));
            readBeside.push(posix.normalize(posix.join(built, match[1]!)).split('/')[0]!);
          }
        }
      }
    };
    visit('src');
    expect(readBeside).toContain('migrations');
    for (const top of readBeside) expect(inImage, `${top} is read by the code`).toContain(top);
    expect(readMigrations().length).toBe(readdirSync(join(PROJECT_ROOT, 'migrations')).filter((f) => f.endsWith('.sql')).length);
  });

  it('runs as an unprivileged user who owns DATA_DIR, a volume', () => {
    const users = instructionsOf(runtime, 'USER');
    const user = users.at(-1)!.args.split(':')[0]!;
    expect(user).not.toMatch(/^(root|0)$/);
    expect(users.at(-1)!.line).toBeLessThan(instructionsOf(runtime, 'CMD')[0]!.line);
    const dataDir = runtimeEnv().DATA_DIR!;
    expect(dataDir).toMatch(/^\//);
    expect(instructionsOf(runtime, 'RUN').map((i) => i.args).join('\n')).toMatch(new RegExp(`chown ${user}(:${user})? ${dataDir}\\b`));
    expect(instructionsOf(runtime, 'VOLUME').map((i) => i.args)).toContain(dataDir);
  });

  it("exposes the port the server listens on: PORT's default, bound to every interface as the contract says", () => {
    const env = runtimeEnv();
    expect(loadConfig({}).port).toBe(9000);
    expect(instructionsOf(runtime, 'EXPOSE').map((i) => i.args)).toEqual([String(loadConfig({}).port)]);
    expect(env.PORT).toBe(String(loadConfig({}).port));
    expect(env.HOST).toBe('0.0.0.0');
    expect(loadConfig(env)).toMatchObject({ port: 9000, host: '0.0.0.0', dataDir: env.DATA_DIR });
  });
});

describe('docker-compose.yml', () => {
  const masterKey = Buffer.alloc(32, 1).toString('base64url');
  const resolved = (env: Record<string, string>) => Object.fromEntries(Object.entries(composeEnv).map(([name, value]) => [name, interpolate(value, env)]));

  it('builds this image and waits for a healthy PostgreSQL whose credentials DATABASE_URL uses', () => {
    expect(realmgate.build).toBe('.');
    expect(realmgate.depends_on).toEqual({ postgres: { condition: 'service_healthy' }, mailpit: { condition: 'service_started' } });
    const postgres = services.postgres!;
    expect((postgres.healthcheck as { test: string[] }).test.join(' ')).toMatch(/pg_isready/);
    const pgEnv = postgres.environment as Record<string, string>;
    const url = new URL(resolved({ MASTER_KEY: masterKey }).DATABASE_URL!);
    expect({ host: url.hostname, port: url.port, user: url.username, password: url.password, db: url.pathname.slice(1) }).toEqual({
      host: 'postgres',
      port: '5432',
      user: pgEnv.POSTGRES_USER,
      password: pgEnv.POSTGRES_PASSWORD,
      db: pgEnv.POSTGRES_DB,
    });
    for (const service of Object.values(services)) {
      expect(service.user).toBeUndefined();
      expect(service.privileged).toBeUndefined();
    }
  });

  it("gives a configuration the server accepts; MASTER_KEY, which PostgreSQL requires, is required before anything starts", () => {
    const config = loadConfig(resolved({ MASTER_KEY: masterKey }));
    expect(config).toMatchObject({ port: 9000, adminPort: 9001, host: '0.0.0.0', baseUrl: 'http://localhost:9000', adminToken: undefined, logLevel: 'info' });
    expect(config.mail).toMatchObject({ smtp: { host: 'mailpit', port: 1025, secure: false } });
    expect(config.databaseUrl).toMatch(/^postgres:\/\/.*@postgres:5432\//);
    expect(() => resolved({})).toThrow(/compose refuses to start: MASTER_KEY/);
  });

  it('publishes PORT, and ADMIN_PORT on the host\'s loopback only, where the realmgate command in the container finds it', () => {
    const env = resolved({ MASTER_KEY: masterKey });
    expect(realmgate.ports).toEqual([`${env.PORT}:${env.PORT}`, `127.0.0.1:${env.ADMIN_PORT}:${env.ADMIN_PORT}`]);
    expect(env.PORT).toBe(runtimeEnv().PORT);
    expect(env.REALMGATE_URL).toBe(`http://127.0.0.1:${env.ADMIN_PORT}`);
    expect(read('docs/administration.md')).toContain('REALMGATE_URL');
  });

  it('has a mail catcher whose web interface is published on the loopback only, and SMTP_URL reaches it', () => {
    const mailpit = services.mailpit!;
    expect(mailpit.image).toMatch(/^axllent\/mailpit:/);
    expect(mailpit.ports).toEqual(['127.0.0.1:8025:8025']);
    expect(resolved({ MASTER_KEY: masterKey }).SMTP_URL).toBe('smtp://mailpit:1025');
  });
});

describe('the variables of the image and of compose', () => {
  const names = new Set([...Object.keys(runtimeEnv()), ...Object.keys(composeEnv)].filter((name) => !NOT_REALMGATE.has(name)));

  it('are read by src/config.ts and listed in docs/configuration.md', () => {
    expect(names.size).toBeGreaterThan(5);
    const config = configVariables();
    const readme = tableVariables(read('docs/configuration.md'), /^## Environment variables$/m);
    for (const name of names) {
      expect(config, name).toContain(name);
      expect(readme, name).toContain(name);
    }
  });

  it.skipIf(!existsSync(CONTRACT))("are the contract's (CONTRACT.md §1)", () => {
    const contract = tableVariables(readFileSync(CONTRACT, 'utf8'), /^## 1\. /m);
    expect(contract.size).toBeGreaterThan(10);
    for (const name of names) expect(contract, name).toContain(name);
  });
});

describe('the health checks', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await startTestApp({ listen: true });
    port = Number(new URL(t.baseUrl).port);
  });

  afterAll(() => t?.close());

  const imageCheck = () => {
    const healthcheck = instructionsOf(runtime, 'HEALTHCHECK');
    expect(healthcheck).toHaveLength(1);
    const cmd = / CMD (\[.*\])$/.exec(healthcheck[0]!.args)![1]!;
    return commandWords(cmd).words;
  };
  const composeCheck = () => {
    const [form, ...words] = (realmgate.healthcheck as { test: string[] }).test;
    expect(form).toBe('CMD');
    return words;
  };

  it.each([
    ['the image', imageCheck],
    ['compose', composeCheck],
  ])('of %s asks a path the server answers 200, on PORT, and pass against a serving instance only', async (_, check) => {
    const words = check();
    const path = /\/(healthz|readyz)\b/.exec(words.join(' '))?.[0];
    expect(path).toBeDefined();
    expect((await t.app.inject(path!)).statusCode).toBe(200);
    expect(await runHealthCheck(words, port)).toBe(0);
    expect(await runHealthCheck(words, await freePort())).toBe(1);
  });
});

describe('the compose reader', () => {
  it('refuses what it does not read rather than guess', () => {
    for (const text of ['a: &x 1', 'a: |\n  text', 'a: {b: 1}', 'a:\n  - b: 1', '---\na: 1', 'a: 1\na: 2', "a: 'open"]) {
      expect(() => parseComposeYaml(text), text).toThrow(/not read by this reader/);
    }
    expect(parseComposeYaml('a:\n- "x" # note\n- \'y\'\'s\'\nb: ["p", "q"]\nc:\n  d: e:f\n')).toEqual({ a: ['x', "y's"], b: ['p', 'q'], c: { d: 'e:f' } });
  });

  it('interpolates as compose does', () => {
    expect(interpolate('${A:-x}/${B-y}/${C}/$$D/$E', { B: '', E: 'e' })).toBe('x///$D/e');
    expect(interpolate('${A:-x}', { A: '' })).toBe('x');
    expect(interpolate('${A-x}', { A: '' })).toBe('');
    expect(() => interpolate('${A:?needed}', { A: '' })).toThrow(/A: needed/);
  });
});
