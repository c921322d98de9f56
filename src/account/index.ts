import type { AuditLog } from '../audit/audit-log.js';
import type { Broker } from '../identity-providers/broker.js';
import type { Mailer } from '../mail/mailer.js';
import type { Store } from '../store/index.js';
import type { KeyEncryption } from '../tokens/key-encryption.js';
import type { PasswordHashing } from '../authn/password-hashing.js';
import { applicationsSection } from './applications.js';
import { FirstFactorCode } from './enrolment-code.js';
import { identitiesSection } from './identities.js';
import { oneTimeCodeSection } from './one-time-code.js';
import { passkeysSection } from './passkeys.js';
import { passwordSection } from './password-change.js';
import { profileSection } from './profile.js';
import { recoveryCodesSection } from './recovery-codes.js';
import type { AccountSection } from './section.js';
import { sessionsSection } from './sessions.js';

/** What the sections need to show and change what they manage. */
export interface AccountSectionDeps {
  store: Store;
  audit: AuditLog;
  encryption: KeyEncryption;
  /** BASE_URL: passkeys are bound to its origin. */
  baseUrl: string;
  /** Linking accounts at the realm's upstream providers. */
  broker: Broker;
  /** None without SMTP_URL: a first second factor then asks no mailed code. */
  mailer: Mailer | undefined;
  /** argon2id's cost for new passwords (src/authn/password-hashing.ts). */
  passwordHashing: PasswordHashing;
}

/** The sections of the account page, in the order they are shown. */
export function accountSections(deps: AccountSectionDeps): AccountSection[] {
  const firstFactor = new FirstFactorCode(deps);
  return [
    profileSection(deps),
    passwordSection(deps),
    oneTimeCodeSection({ ...deps, firstFactor }),
    passkeysSection({ ...deps, firstFactor }),
    recoveryCodesSection(deps),
    identitiesSection(deps),
    applicationsSection(deps.store, deps.audit),
    sessionsSection(deps.store, deps.audit),
    firstFactor.section(),
  ];
}
