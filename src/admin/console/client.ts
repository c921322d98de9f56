import { newClientMetadata } from '../../records/client.js';
import { ROOT_REALM } from '../../records/realm-names.js';
import type { ClientStore } from '../../store/clients.js';

/** The console's client in `root` (CONTRACT.md §14). */
export const CONSOLE_CLIENT_ID = 'realmgate-console';

export const consoleRedirectUri = (baseUrl: string): string => `${baseUrl}/admin/console/callback`;

/**
 * The console signs in through `root` as a public client with the code flow and PKCE (S256):
 * made when absent at every start, as the admin resource is (src/admin/admin-resource.ts). Of
 * instances starting together, one inserts it and the others find it taken; a client an operator
 * changed or deleted meanwhile is theirs (a deleted one comes back at the next start).
 */
export async function ensureConsoleClient(clients: Pick<ClientStore, 'get' | 'create'>, baseUrl: string): Promise<void> {
  if (await clients.get(ROOT_REALM, CONSOLE_CLIENT_ID)) return;
  const metadata = newClientMetadata({
    client_type: 'public',
    client_name: 'realmgate admin console',
    redirect_uris: [consoleRedirectUri(baseUrl)],
    post_logout_redirect_uris: [`${baseUrl}/admin/console`],
    grant_types: ['authorization_code', 'refresh_token'],
    scope: 'openid',
    require_pkce: true,
  });
  await clients.create(ROOT_REALM, CONSOLE_CLIENT_ID, metadata, undefined);
}
