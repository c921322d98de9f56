import { type Command, Option } from 'commander';
import type { Db } from '../../store/db.js';
import { CliError, UsageError } from '../errors.js';
import { printable } from '../output.js';
import { print } from '../output-mode.js';

interface MigrateOptions {
  databaseUrl?: string;
  dataDir?: string;
  json?: boolean;
}

interface Target {
  kind: 'postgres' | 'pglite';
  /** What the messages name: never the URL's password. */
  label: string;
  open(): Promise<Db>;
}

/** DATABASE_URL selects PostgreSQL, else the embedded store in DATA_DIR: as the server chooses (src/config.ts). */
function targetOf(command: Command, options: MigrateOptions): Target {
  if (command.getOptionValueSource('databaseUrl') === 'cli' && command.getOptionValueSource('dataDir') === 'cli') {
    throw new UsageError('give --database-url or --data-dir, not both');
  }
  const databaseUrl = options.databaseUrl || undefined;
  if (databaseUrl) {
    let url: URL;
    try {
      url = new URL(databaseUrl);
    } catch {
      throw new UsageError('DATABASE_URL: expected a postgres:// URL');
    }
    if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') throw new UsageError('DATABASE_URL: expected a postgres:// URL');
    return {
      kind: 'postgres',
      label: `PostgreSQL at ${printable(`${url.host}${url.pathname}`)}`,
      open: async () => (await import('../../store/pg.js')).createPgDb(databaseUrl, { poolSize: 1 }),
    };
  }
  const dataDir = options.dataDir || './data';
  return {
    kind: 'pglite',
    label: `the embedded store in ${printable(dataDir)}`,
    open: async () => (await import('../../store/pglite.js')).createPgliteDb(dataDir),
  };
}

/** `realmgate migrate`: the migrations of migrations/ applied, as a start would, without serving. */
export function addMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('apply the pending migrations to the database, without starting the server (under the same lock as a start)')
    .addOption(new Option('--database-url <url>', 'PostgreSQL (postgres://…)').env('DATABASE_URL'))
    .addOption(new Option('--data-dir <dir>', 'the embedded store, when no database URL is given [default: ./data]').env('DATA_DIR'))
    .option('--json', 'print {store, applied, migrations} as JSON')
    .action(async (options: MigrateOptions, command: Command) => {
      const target = targetOf(command, options);
      const { migrate, readMigrations } = await import('../../store/migrate.js');
      const { StoreUnavailableError } = await import('../../errors.js');
      let applied: string[];
      try {
        const db = await target.open();
        try {
          applied = await migrate(db);
        } finally {
          await db.close().catch(() => {});
        }
      } catch (error) {
        if (error instanceof StoreUnavailableError) {
          const cause = (error.cause as Error | undefined)?.message ?? 'no answer';
          throw new CliError(`cannot migrate: ${target.label} is unavailable (${printable(cause)})`);
        }
        throw new CliError(`cannot migrate ${target.label}: ${printable((error as Error).message ?? String(error))}`);
      }
      const known = readMigrations().length;
      print(options, { store: target.kind, applied, migrations: known }, () =>
        applied.length > 0
          ? `Applied ${applied.length} of ${known} migrations to ${target.label}:\n${applied.map((name) => `  ${name}`).join('\n')}`
          : `${target.label} is up to date (${known} migrations).`,
      );
    });
}
