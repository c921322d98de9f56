import { ROOT_REALM } from '../records/realm-names.js';
import type { ResourceStore } from '../store/resources.js';
import { adminResourceOf } from './caller.js';

/**
 * The admin API as a registered resource of `root` (CONTRACT.md §14): any `root` client may ask
 * tokens for it, and what such a token may do is its subject's `realmgate-*` roles. Registered
 * when absent at every start; of instances starting together, each writes the same record.
 */
export async function ensureAdminResource(resources: ResourceStore, baseUrl: string): Promise<void> {
  const identifier = adminResourceOf(baseUrl);
  if (await resources.get(ROOT_REALM, identifier)) return;
  await resources.put(ROOT_REALM, { identifier, name: 'realmgate admin API' });
}
