import type { AuditLog } from '../../audit/audit-log.js';
import type { Text } from '../../records/text.js';
import type { Locale } from '../../records/locales.js';
import type { SignInView } from './views.js';
import type { RequestRealm } from '../../records/realm.js';
import type { User } from '../../store/users.js';
import type { JourneyNode } from '../../records/journey.js';
import type { Passed } from '../journeys/walk.js';

/** What a node sees of the sign-in it takes part in (no HTTP: the driver hands it what it needs). */
export interface NodeContext {
  readonly realm: RequestRealm;
  /** The transaction's secret id; a node that keeps state of its own (a WebAuthn challenge) keys it by this. */
  readonly transactionId: string;
  /** The person, once a node before has told who signs in. */
  readonly userId: string | undefined;
  readonly address: string;
  /** The language of the sign-in's pages, which its mails go out in too. */
  readonly locale: Locale;
  readonly audit: AuditLog;
  readonly log: { info(details: object, message: string): void };
}

export type NodeOutcome =
  /**
   * The person passed the node: its `success` outcome, unless another is named. A node that
   * identifies the person (a password, a passkey without a known person) says whether their
   * account is disabled, from the record it read (`person`, which a driver without a session
   * of its own, the password grant, issues tokens for).
   */
  | { readonly passed: Passed; readonly disabled?: boolean; readonly person?: User }
  /** The person took another outcome of the node without passing it (a passkey they do not have). */
  | { readonly outcome: string }
  /** Shown on the node's page again, in its language; `failure` counts towards brute-force limits. */
  | { readonly error: Text; readonly failure: boolean }
  /** The node moved on within itself (an enrolment confirmed a first code…): show it again. */
  | { readonly again: true }
  /** Shown on the node's page again, with what was done (a mail sent again). */
  | { readonly notice: Text };

export type Form = Readonly<Record<string, string | undefined>>;

/** What a node's page shows again: an error, the fields typed (but no secret). */
export interface Shown {
  readonly username?: string | undefined;
  readonly form?: Form | undefined;
}

/** A node of the person's that the sign-in page runs: a password, a one-time code, a passkey, a registration, an email check. */
export interface NodeRunner {
  readonly type: 'password' | 'otp' | 'passkey' | 'register' | 'email_verification';
  /** The fields its form posts, beside the hidden ones. */
  readonly fields: readonly string[];
  /** For a node that tells who signs in: the account a form is about, for brute-force counting before the person is known. */
  account?(form: Form): string | undefined;
  view(context: NodeContext, node: JourneyNode, shown: Shown): Promise<SignInView>;
  submit(context: NodeContext, node: JourneyNode, form: Form): Promise<NodeOutcome>;
}
