import { type ClientMetadataPatch } from '../records/client.js';
import { newClientMetadata } from '../records/client-changes.js';
import { ROOT_REALM } from '../records/realm-names.js';
import type { ClientStore } from '../store/clients.js';

/**
 * A client of `root` that realmgate's own tools sign in with (CONTRACT.md §14), made at every
 * start when absent, as the admin resource is (src/admin/admin-resource.ts). A record that exists
 * is left as an administrator changed it (a deleted one comes back at the next start); of
 * instances starting together, one inserts it and the others find it taken.
 */
export async function ensureRootClient(clients: Pick<ClientStore, 'get' | 'create'>, clientId: string, metadata: ClientMetadataPatch): Promise<void> {
  if (await clients.get(ROOT_REALM, clientId)) return;
  await clients.create(ROOT_REALM, clientId, newClientMetadata(metadata), undefined);
}
