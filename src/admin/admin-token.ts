import type { ServerStateStore } from '../store/server-state.js';
import { randomSecret, sha256 } from '../secrets.js';

const STATE_NAME = 'admin_token_sha256';

export interface AdminToken {
  hash: Buffer;
  /** Set only on the first start without ADMIN_TOKEN, to be printed once (on stderr, apart from the logs). */
  generated: string | undefined;
}

/**
 * ADMIN_TOKEN when set; otherwise the token generated at first start, of which only the
 * hash is stored. Of instances starting together, the first to store its hash wins.
 */
export async function resolveAdminToken(configured: string | undefined, state: ServerStateStore): Promise<AdminToken> {
  if (configured) return { hash: sha256(configured), generated: undefined };
  const stored = await state.get(STATE_NAME);
  if (stored) return { hash: Buffer.from(stored, 'base64url'), generated: undefined };
  const token = randomSecret();
  if (await state.setIfAbsent(STATE_NAME, sha256(token).toString('base64url'))) {
    return { hash: sha256(token), generated: token };
  }
  return resolveAdminToken(undefined, state);
}
