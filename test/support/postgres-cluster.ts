import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './app.js';
import { isAlive } from './process.js';

/**
 * A PostgreSQL cluster of the test's own, in a temporary directory on a free port: one that a
 * test may stop, crash and start again, where the shared server on 5432 must never be.
 * As root, its commands run as the `postgres` OS user (PostgreSQL refuses to run as root).
 */

const PG_LIB = '/usr/lib/postgresql';

/** The bin directory of the newest PostgreSQL installed from Debian's packages. */
function binDir(): string | undefined {
  if (!existsSync(PG_LIB)) return undefined;
  const versions = readdirSync(PG_LIB)
    .filter((name) => /^\d+$/.test(name) && existsSync(join(PG_LIB, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] && join(PG_LIB, versions[0], 'bin');
}

const isRoot = (): boolean => process.getuid?.() === 0;

/** uid and gid of the `postgres` OS user, when there is one. */
function postgresUser(): { uid: number; gid: number } | undefined {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : undefined;
  } catch {
    return undefined;
  }
}

/** Why a private cluster cannot be made here; undefined when it can. */
export function clusterSkipReason(): string | undefined {
  if (!binDir()) return `no initdb under ${PG_LIB}/*/bin (apt-get install postgresql)`;
  if (isRoot() && (!postgresUser() || !existsSync('/usr/sbin/runuser'))) {
    return 'running as root without a postgres OS user and runuser to run PostgreSQL as';
  }
  return undefined;
}

const DIR_PREFIX = 'realmgate-pg-';
/** In a cluster's directory: the pid of the test process that made it. */
const OWNER_FILE = 'owner.pid';

/** Clusters started and not yet stopped: a test process that ends early stops them on its way out. */
const started = new Set<PostgresCluster>();
process.once('exit', () => {
  for (const cluster of started) cluster.stopNow();
});

/**
 * Stops and removes the clusters of test processes that died without doing it (a test
 * worker killed by its runner never sees its 'exit').
 */
function sweepAbandoned(bin: string): void {
  for (const name of readdirSync(tmpdir()).filter((entry) => entry.startsWith(DIR_PREFIX))) {
    const dir = join(tmpdir(), name);
    let owner: number;
    try {
      owner = Number(readFileSync(join(dir, OWNER_FILE), 'utf8'));
    } catch {
      continue; // being made right now, or not ours
    }
    if (isAlive(owner)) continue;
    const dataDir = join(dir, 'data');
    if (existsSync(join(dataDir, 'postmaster.pid'))) {
      const [file, argv] = asPostgres(join(bin, 'pg_ctl'), ['stop', '-D', dataDir, '-m', 'immediate']);
      try {
        execFileSync(file, argv, { cwd: dir, stdio: 'ignore', timeout: 30_000 });
      } catch {
        continue;
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
}


/** As root, a PostgreSQL command runs as the postgres OS user. */
function asPostgres(path: string, args: string[]): [string, string[]] {
  return isRoot() ? ['/usr/sbin/runuser', ['-u', 'postgres', '--', path, ...args]] : [path, args];
}

export class PostgresCluster {
  private constructor(
    readonly port: number,
    private readonly dir: string,
    private readonly bin: string,
  ) {}

  /** initdb into a new temporary directory (trust authentication, no fsync); not started yet. */
  static async create(): Promise<PostgresCluster> {
    const bin = binDir();
    if (!bin) throw new Error(clusterSkipReason());
    sweepAbandoned(bin);
    const dir = mkdtempSync(join(tmpdir(), DIR_PREFIX));
    writeFileSync(join(dir, OWNER_FILE), String(process.pid));
    const owner = isRoot() ? postgresUser() : undefined;
    if (owner) chownSync(dir, owner.uid, owner.gid);
    const cluster = new PostgresCluster(await freePort(), dir, bin);
    await cluster.run('initdb', ['-D', cluster.dataDir, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
    return cluster;
  }

  get dataDir(): string {
    return join(this.dir, 'data');
  }

  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /** Starts it on its port and waits until it accepts connections. */
  async start(): Promise<void> {
    // fsync off: a stop or crash of the server alone loses nothing the kernel has.
    const serverOptions = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=100`;
    started.add(this);
    await this.run('pg_ctl', ['start', '-D', this.dataDir, '-w', '-t', '60', '-l', join(this.dir, 'server.log'), '-o', serverOptions]);
  }

  /**
   * `fast`: the server ends every session (their transactions roll back) and stops cleanly.
   * `immediate`: every server process quits at once, as in a crash; the next start recovers from the WAL.
   */
  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await this.run('pg_ctl', ['stop', '-D', this.dataDir, '-w', '-t', '60', '-m', mode]);
  }

  /** The process ids of the server: the postmaster first, then its children. */
  pids(): number[] {
    const postmaster = Number(readFileSync(join(this.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)], { encoding: 'utf8' })
      .split('\n')
      .map((line) => Number(line.trim()))
      .filter((pid) => pid > 0);
    return [postmaster, ...children];
  }

  serverLog(): string {
    try {
      return readFileSync(join(this.dir, 'server.log'), 'utf8');
    } catch {
      return '';
    }
  }

  /** Stops the server if it runs, and removes its directory. */
  async dispose(): Promise<void> {
    if (existsSync(join(this.dataDir, 'postmaster.pid'))) await this.stop('immediate').catch(() => {});
    started.delete(this);
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** As the test process exits: no waiting is possible any more. */
  stopNow(): void {
    if (!existsSync(join(this.dataDir, 'postmaster.pid'))) return;
    const [file, argv] = asPostgres(join(this.bin, 'pg_ctl'), ['stop', '-D', this.dataDir, '-m', 'immediate']);
    try {
      execFileSync(file, argv, { cwd: this.dir, stdio: 'ignore', timeout: 10_000 });
    } catch {
      // Nothing more can be done on the way out.
    }
  }

  private run(command: string, args: string[]): Promise<void> {
    const [file, argv] = asPostgres(join(this.bin, command), args);
    return new Promise((resolve, reject) => {
      // cwd: a directory the postgres user may enter (the tools look up the current one).
      execFile(file, argv, { cwd: this.dir, timeout: 90_000 }, (error, stdout, stderr) =>
        error ? reject(new Error(`${command} ${args.join(' ')} failed: ${stdout}${stderr}${this.serverLog()}`)) : resolve(),
      );
    });
  }
}
