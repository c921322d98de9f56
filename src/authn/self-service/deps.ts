import type { AuditLog } from '../../audit/audit-log.js';
import type { Mailer } from '../../mail/mailer.js';
import type { Locale } from '../../records/locales.js';
import type { Store } from '../../store/index.js';

/** What the pages by which people manage themselves (CONTRACT.md §9) change and send. */
export interface SelfServiceDeps {
  readonly store: Pick<Store, 'users' | 'tickets' | 'mailAllowances' | 'attemptCounters'>;
  /** None without `SMTP_URL`: nothing is mailed, and the pages say so. */
  readonly mailer: Mailer | undefined;
}

/** Who asked, for the audit trail and the tickets' limits per address, and in which language a mail goes out: the page's. */
export interface Requester {
  readonly address: string;
  readonly audit: AuditLog;
  readonly locale: Locale;
}
