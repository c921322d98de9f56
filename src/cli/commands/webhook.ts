import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { fields, printLines, printable, table } from '../output.js';
import { print } from '../output-mode.js';
import { AdminApi, type ConnectionOptions, adminPath, connectionOptions } from '../server.js';
import { readStdin } from '../stdin.js';

interface WebhookView {
  name: string;
  url: string;
  events: string[];
  created_at: string;
  updated_at: string;
}

interface PutOptions extends ConnectionOptions {
  /** Not `--url`: that option names the server (connectionOptions). */
  receiver: string;
  event: string[];
  secretStdin?: boolean;
}

const webhookView = (webhook: WebhookView): string =>
  fields([
    ['name', webhook.name],
    ['url', webhook.url],
    ['events', webhook.events],
    ['created_at', webhook.created_at],
    ['updated_at', webhook.updated_at],
  ]);

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** `realmgate webhook list|show|put|delete`: /admin/realms/{realm}/webhooks (CONTRACT.md §16). */
export function addWebhookCommands(program: Command): void {
  const webhook = program.command('webhook').description("a realm's receivers of audit events, each POSTed signed with HMAC-SHA256");

  connectionOptions(webhook.command('list').description("a realm's webhooks (never their secrets)").argument('<realm>')).action(async (realm: string, options: ConnectionOptions) => {
    const answer = (await AdminApi.from(options).get(adminPath('realms', realm, 'webhooks'))) as { webhooks: WebhookView[] };
    print(options, answer, ({ webhooks }) =>
      table<WebhookView>(
        [
          ['name', (w) => w.name],
          ['url', (w) => w.url],
          ['events', (w) => w.events],
          ['updated_at', (w) => w.updated_at],
        ],
        webhooks,
      ),
    );
  });

  connectionOptions(webhook.command('show').alias('get').description('a webhook (never its secret)').argument('<realm>').argument('<name>')).action(
    async (realm: string, name: string, options: ConnectionOptions) => {
      print(options, (await AdminApi.from(options).get(adminPath('realms', realm, 'webhooks', name))) as WebhookView, webhookView);
    },
  );

  connectionOptions(
    webhook
      .command('put')
      .description('create or replace a webhook; its secret is read from standard input')
      .argument('<realm>')
      .argument('<name>')
      .requiredOption('--receiver <url>', 'where the events are POSTed (https)')
      .requiredOption('--event <type>', 'an audit event type to send, e.g. sign_in.failed (repeat the option for more)', collect)
      .option('--secret-stdin', 'read the signing secret (16 characters or more) from standard input'),
  ).action(async (realm: string, name: string, options: PutOptions) => {
    if (!options.secretStdin) throw new UsageError('the signing secret is needed: pipe it in with --secret-stdin');
    const secret = await readStdin();
    const answer = (await AdminApi.from(options).put(adminPath('realms', realm, 'webhooks', name), { url: options.receiver, events: options.event, secret })) as WebhookView;
    print(options, answer, webhookView);
  });

  connectionOptions(webhook.command('delete').description('delete a webhook; deliveries still owed to it are dropped').argument('<realm>').argument('<name>')).action(
    async (realm: string, name: string, options: ConnectionOptions) => {
      await AdminApi.from(options).delete(adminPath('realms', realm, 'webhooks', name));
      if (!options.json) printLines(`The webhook ${printable(name)} of ${printable(realm)} is deleted.`);
    },
  );
}
