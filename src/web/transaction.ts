import type { PreparedAuditEvent } from '../audit/audit-log.js';
import type { SignInAttempt } from '../audit/sign-in.js';
import type { RequestRealm } from '../records/realm.js';
import type { AuthorizationTransaction } from '../store/authorization-flow.js';
import type { Client } from '../store/clients.js';
import type { Session } from '../store/sessions.js';

/** What the pages of a transaction (src/web/authorization-flow.ts) hand each other. */

/** A transaction a page continues, as `AuthorizationFlow.resume` finds it. */
export interface ResumedTransaction {
  /** The transaction's secret id, as the page's form carries it. */
  readonly id: string;
  readonly transaction: AuthorizationTransaction;
  /** The client the person is asked about; none for a plain sign-in. */
  readonly client: Client | undefined;
  readonly browserHash: Buffer;
  /** The browser's session at the realm, read with the transaction. */
  readonly session: Session | undefined;
}

/** What the person decided on the consent page: the scopes to remember, and the event of the decision. */
export interface Decision {
  readonly consent?: readonly string[];
  readonly event?: PreparedAuditEvent;
}

/** A sign-in that walked its journey to `done` (src/web/login.ts). */
export interface CompletedJourney {
  readonly userId: string;
  readonly amr: readonly string[];
  /** The fingerprint of the password a step checked, if one did: the session begins only while it is the person's. */
  readonly passwordOf: string | undefined;
  readonly journey: string;
  readonly acr: string;
  /** The nodes of the person's passed (src/authn/journeys/walk.ts passedNodeOf), the completed session's included. */
  readonly nodes: readonly string[];
  /** The sid of the session a step-up completes: the new session replaces it, keeping its sign-in time and end. */
  readonly stepUpOf: string | undefined;
  /** For its `sign_in.succeeded` event. */
  readonly attempt: SignInAttempt;
}

/** The transaction ended (finished, expired, or never existed) before this request. */
export class TransactionGone extends Error {
  override name = 'TransactionGone';
}

export function pageUrl(realm: RequestRealm, page: 'login' | 'consent' | 'register', transactionId: string): string {
  return `${realm.issuer}/${page}?transaction=${encodeURIComponent(transactionId)}`;
}
