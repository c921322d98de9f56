import { DEVICE_CODE_GRANT, newClientMetadata } from '../records/client.js';
import { ROOT_REALM } from '../records/realm-names.js';
import type { ClientStore } from '../store/clients.js';

/** The public client of `root` that `realmgate login` signs in with (CONTRACT.md §14). */
export const CLI_CLIENT_ID = 'realmgate-cli';

/**
 * Made at every start when absent, as the admin resource is (src/admin/admin-resource.ts): a
 * public client of the device authorization grant (RFC 8628) and refresh tokens. A record that
 * exists is left as an administrator changed it; of instances starting together, one inserts.
 */
export async function ensureCliClient(clients: Pick<ClientStore, 'get' | 'create'>): Promise<void> {
  if (await clients.get(ROOT_REALM, CLI_CLIENT_ID)) return;
  const metadata = newClientMetadata({
    client_type: 'public',
    client_name: 'realmgate command line',
    grant_types: [DEVICE_CODE_GRANT, 'refresh_token'],
    scope: 'openid',
  });
  await clients.create(ROOT_REALM, CLI_CLIENT_ID, metadata, undefined);
}
