import type { Db } from './db.js';
import type { Approval } from '../records/approval.js';

/** The outbox kind of a CIBA push (src/outbox/ciba-push.ts sends it). */
export const CIBA_PUSH = 'ciba_push';

/** A push-mode request as its sender finds it, locked (migrations/038_ciba_push.sql). */
export type PushState =
  | { readonly state: 'pending'; readonly expired: boolean }
  | { readonly state: 'denied' }
  /** Minted already: the sealed token response, none if the minting instance died before sealing it. */
  | { readonly state: 'issued'; readonly sealedResponse: Buffer | undefined }
  | { readonly state: 'approved'; readonly scope: readonly string[]; readonly approval: Approval };

export interface HeldPush {
  readonly sealedNotification: Buffer;
  readonly state: PushState;
}

interface PushRow {
  status: 'pending' | 'approved' | 'denied' | 'issued';
  expired: boolean;
  scope: string;
  user_id: string | null;
  sid: string | null;
  auth_time: Date | null;
  amr: string[] | null;
  acr: string | null;
  notification_sealed: Buffer | null;
  push_response_sealed: Buffer | null;
}

/**
 * The rows of CIBA push-mode requests (CIBA Core §10.3) that their sender reads and writes. The
 * request's row lock, held by the sender's transaction, decides who mints: of two instances
 * sending at once, the second finds the request issued.
 */
export class CibaPushRows {
  constructor(private readonly db: Db) {}

  /** The push-mode request, locked until the transaction ends; none once it is gone. */
  async hold(realm: string, id: string): Promise<HeldPush | undefined> {
    const result = await this.db.query<PushRow>(
      `SELECT status, expires_at <= now() AS expired, scope, user_id, sid, auth_time, amr, acr, notification_sealed, push_response_sealed
         FROM pending_authorizations WHERE id = $1::uuid AND realm = $2 AND kind = 'ciba' AND push FOR UPDATE`,
      [id, realm],
    );
    const row = result.rows[0];
    if (!row?.notification_sealed) return undefined;
    return { sealedNotification: Buffer.from(row.notification_sealed), state: stateOf(row) };
  }

  /** The tokens are written (or refused, `denied`): the request is settled, under the lock `hold` took. */
  async settle(realm: string, id: string, status: 'issued' | 'denied'): Promise<void> {
    await this.db.query("UPDATE pending_authorizations SET status = $3 WHERE id = $1::uuid AND realm = $2 AND status = 'approved'", [id, realm, status]);
  }

  /** Keeps the token response, sealed, for the retries of its push. */
  async keepResponse(realm: string, id: string, sealed: Buffer): Promise<void> {
    await this.db.query(
      "UPDATE pending_authorizations SET push_response_sealed = $3 WHERE id = $1::uuid AND realm = $2 AND status = 'issued' AND push_response_sealed IS NULL",
      [id, realm, sealed],
    );
  }
}

function stateOf(row: PushRow): PushState {
  switch (row.status) {
    case 'pending':
      return { state: 'pending', expired: row.expired };
    case 'denied':
      return { state: 'denied' };
    case 'issued':
      return { state: 'issued', sealedResponse: row.push_response_sealed ? Buffer.from(row.push_response_sealed) : undefined };
    case 'approved':
      return {
        state: 'approved',
        scope: row.scope.split(' ').filter((name) => name !== ''),
        approval: { userId: row.user_id!, sid: row.sid!, authTime: row.auth_time!, amr: row.amr!, acr: row.acr ?? '0' },
      };
  }
}
