import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { atExit } from '../main.js';
import { freePort, log, runToCompletion } from '../processes.js';
import { connect } from './database.js';

/** Where `initdb` and `pg_ctl` are, unless SCALE_PG_BIN says. */
const DEFAULT_BIN = '/usr/lib/postgresql/15/bin';

/**
 * Settings the cluster takes from the PostgreSQL server of DATABASE_URL, so that the part
 * runs as it would there but for `shared_buffers` (autovacuum, durability, checkpoints, the
 * planner's costs).
 */
const COPIED_SETTINGS = [
  'autovacuum',
  'fsync',
  'synchronous_commit',
  'full_page_writes',
  'wal_level',
  'max_wal_size',
  'min_wal_size',
  'checkpoint_timeout',
  'max_connections',
  'work_mem',
  'maintenance_work_mem',
  'effective_cache_size',
  'random_page_cost',
  'jit',
] as const;

/** A PostgreSQL cluster of the bench's own: initdb'd into a temporary directory, on its own port. */
export interface OwnCluster {
  /** The `postgres` database of the cluster, as the part's server URL. */
  readonly url: string;
  /** Every setting it was started with (`shared_buffers` first), as `SHOW` prints them. */
  readonly settings: Readonly<Record<string, string>>;
  readonly directory: string;
  /** Stops the cluster and removes its directory; safe to call twice. */
  stop(): Promise<void>;
}

/** `command` as the `postgres` user when the bench runs as root (initdb refuses root), else as is. */
function asClusterOwner(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

async function copiedSettings(serverUrl: string): Promise<Record<string, string>> {
  const client = await connect(serverUrl);
  try {
    const { rows } = await client.query<{ name: string; value: string }>(
      'SELECT name, current_setting(name) AS value FROM pg_settings WHERE name = ANY($1::text[]) ORDER BY name',
      [[...COPIED_SETTINGS]],
    );
    return Object.fromEntries(rows.map((row) => [row.name, row.value]));
  } finally {
    await client.end();
  }
}

/**
 * initdb, then `pg_ctl start` with `shared_buffers` (a PostgreSQL size, e.g. `4GB`; `default`:
 * initdb's own, 128MB) and the settings of `serverUrl`'s server (COPIED_SETTINGS). Stopped and
 * removed when the caller calls `stop`, and however the bench ends (failure or ctrl-c).
 */
export async function startOwnCluster(serverUrl: string, sharedBuffers: string): Promise<OwnCluster> {
  const bin = process.env.SCALE_PG_BIN || DEFAULT_BIN;
  const directory = mkdtempSync(join(tmpdir(), 'realmgate-scale-pg-'));
  const data = join(directory, 'data');
  const logFile = join(directory, 'postgres.log');
  if (process.getuid?.() === 0) {
    const [uid, gid] = ['-u', '-g'].map((flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim()));
    chownSync(directory, uid!, gid!);
  }
  let started = false;
  let stopping: Promise<void> | undefined;
  // Every caller (the part's end, the bench's exit on ctrl-c) waits for the one stop to finish.
  const stop = (): Promise<void> => (stopping ??= stopAndRemove());
  const stopAndRemove = async (): Promise<void> => {
    if (started) {
      const [command, args] = asClusterOwner(join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']);
      await runToCompletion(command, args, directory).catch((error: unknown) => log(`own cluster: pg_ctl stop failed: ${(error as Error).message}`));
    }
    rmSync(directory, { recursive: true, force: true });
    log(`own cluster: stopped, ${directory} removed`);
  };
  atExit(stop);
  try {
    const settings: Record<string, string> = {};
    if (sharedBuffers !== 'default') settings.shared_buffers = sharedBuffers;
    Object.assign(settings, await copiedSettings(serverUrl));
    const port = await freePort();
    log(`own cluster: initdb into ${data}`);
    const [initdb, initArgs] = asClusterOwner(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
    await runToCompletion(initdb, initArgs, directory);
    const options = [
      `-c port=${port}`,
      '-c listen_addresses=127.0.0.1',
      `-c unix_socket_directories=${directory}`,
      ...Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`),
    ].join(' ');
    const [pgCtl, ctlArgs] = asClusterOwner(join(bin, 'pg_ctl'), ['-D', data, '-l', logFile, '-w', '-t', '120', '-o', options, 'start']);
    await runToCompletion(pgCtl, ctlArgs, directory);
    started = true;
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const client = await connect(url);
    try {
      const names = ['shared_buffers', ...Object.keys(settings).filter((name) => name !== 'shared_buffers')];
      const { rows } = await client.query<{ name: string; value: string }>(
        'SELECT name, current_setting(name) AS value FROM unnest($1::text[]) WITH ORDINALITY AS s(name, n) ORDER BY n',
        [names],
      );
      const shown = Object.fromEntries(rows.map((row) => [row.name, row.value]));
      log(`own cluster: port ${port}, ${Object.entries(shown).map(([name, value]) => `${name}=${value}`).join(', ')}`);
      return { url, settings: shown, directory, stop };
    } finally {
      await client.end();
    }
  } catch (error) {
    await stop();
    throw error;
  }
}
