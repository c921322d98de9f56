import { DEVICE_CODE_GRANT } from '../records/client.js';
import type { ClientStore } from '../store/clients.js';
import { ensureRootClient } from './root-client.js';

/** The public client of `root` that `realmgate login` signs in with (CONTRACT.md §14). */
export const CLI_CLIENT_ID = 'realmgate-cli';

/** The CLI's client: the device authorization grant (RFC 8628) and refresh tokens. */
export const ensureCliClient = (clients: Pick<ClientStore, 'get' | 'create'>): Promise<void> =>
  ensureRootClient(clients, CLI_CLIENT_ID, {
    client_type: 'public',
    client_name: 'realmgate command line',
    grant_types: [DEVICE_CODE_GRANT, 'refresh_token'],
    scope: 'openid',
  });
