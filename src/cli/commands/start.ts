import type { Command } from 'commander';

/** `realmgate start`: the server, as `npm start` runs it (src/start.ts), configured by the environment. */
export function addStartCommand(program: Command): void {
  program
    .command('start')
    .description('run the server, configured by its environment variables (PORT, HOST, BASE_URL, DATABASE_URL, DATA_DIR, ADMIN_TOKEN, MASTER_KEY, …): as npm start')
    .action(async () => {
      const { start } = await import('../../start.js');
      await start();
    });
}
