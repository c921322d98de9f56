import type { ClientStore } from '../../store/clients.js';
import { ensureRootClient } from '../root-client.js';

/** The console's client in `root` (CONTRACT.md §14). */
export const CONSOLE_CLIENT_ID = 'realmgate-console';

export const consoleRedirectUri = (baseUrl: string): string => `${baseUrl}/admin/console/callback`;

/** The console signs in through `root` as a public client with the code flow and PKCE (S256). */
export const ensureConsoleClient = (clients: Pick<ClientStore, 'get' | 'create'>, baseUrl: string): Promise<void> =>
  ensureRootClient(clients, CONSOLE_CLIENT_ID, {
    client_type: 'public',
    client_name: 'realmgate admin console',
    redirect_uris: [consoleRedirectUri(baseUrl)],
    post_logout_redirect_uris: [`${baseUrl}/admin/console`],
    grant_types: ['authorization_code', 'refresh_token'],
    scope: 'openid',
    require_pkce: true,
  });
