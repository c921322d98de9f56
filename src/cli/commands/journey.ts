import type { Command } from 'commander';
import { printJson, printLines, printable, table } from '../output.js';
import { print } from '../output-mode.js';
import { AdminApi, type ConnectionOptions, adminPath, connectionOptions } from '../server.js';
import { readJson } from './input.js';

interface Journey {
  start: string;
  nodes: Record<string, unknown>;
}

/** `realmgate journey list|get|put|delete`: /admin/realms/{realm}/journeys (CONTRACT.md §8). */
export function addJourneyCommands(program: Command): void {
  const journey = program.command('journey').description("list, read, store and delete a realm's authentication journeys");

  connectionOptions(journey.command('list').description("a realm's journeys: default, then the stored ones").argument('<realm>')).action(
    async (realm: string, options: ConnectionOptions) => {
      const answer = (await AdminApi.from(options).get(adminPath('realms', realm, 'journeys'))) as { journeys: Array<{ name: string; journey: Journey }> };
      print(options, answer, ({ journeys }) =>
        table<{ name: string; journey: Journey }>(
          [['name', (j) => j.name], ['start', (j) => j.journey.start], ['nodes', (j) => Object.keys(j.journey.nodes).length]],
          journeys,
        ),
      );
    },
  );

  connectionOptions(journey.command('get').alias('show').description('a journey, as the JSON `journey put` takes').argument('<realm>').argument('<name>')).action(
    async (realm: string, name: string, options: ConnectionOptions) => {
      printJson(await AdminApi.from(options).get(adminPath('realms', realm, 'journeys', name)));
    },
  );

  connectionOptions(
    journey
      .command('put')
      .description('store a journey, or replace the one of that name; the server refuses a graph it cannot run, naming the node')
      .argument('<realm>')
      .argument('<name>', 'its name; `default` replaces the one made from the realm\'s authentication setting')
      .argument('<file>', 'the journey\'s JSON ({"start": …, "nodes": {…}}), or - to read it from standard input'),
  ).action(async (realm: string, name: string, file: string, options: ConnectionOptions) => {
    const body = await readJson(file);
    const stored = await AdminApi.from(options).put(adminPath('realms', realm, 'journeys', name), body);
    print(options, stored, () => `Journey ${printable(name)} of ${printable(realm)} saved.`);
  });

  connectionOptions(
    journey
      .command('delete')
      .description('delete a stored journey; one that a client or the realm\'s acr_journeys names is refused')
      .argument('<realm>')
      .argument('<name>'),
  ).action(async (realm: string, name: string, options: ConnectionOptions) => {
    await AdminApi.from(options).delete(adminPath('realms', realm, 'journeys', name));
    // The server answers nothing: with --json, the exit code says it is done.
    if (!options.json) printLines(`Journey ${printable(name)} of ${printable(realm)} deleted.`);
  });
}
