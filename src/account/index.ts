import type { Broker } from '../identity-providers/broker.js';
import type { Store } from '../store/index.js';
import type { KeyEncryption } from '../tokens/key-encryption.js';
import { applicationsSection } from './applications.js';
import { identitiesSection } from './identities.js';
import { oneTimeCodeSection } from './one-time-code.js';
import { passkeysSection } from './passkeys.js';
import { passwordSection } from './password.js';
import { recoveryCodesSection } from './recovery-codes.js';
import type { AccountSection } from './section.js';
import { sessionsSection } from './sessions.js';

/** What the sections need to show and change what they manage. */
export interface AccountSectionDeps {
  store: Store;
  encryption: KeyEncryption;
  /** BASE_URL: passkeys are bound to its origin. */
  baseUrl: string;
  /** Linking accounts at the realm's upstream providers. */
  broker: Broker;
}

/** The sections of the account page, in the order they are shown. */
export function accountSections(deps: AccountSectionDeps): AccountSection[] {
  return [
    passwordSection(deps),
    oneTimeCodeSection(deps),
    passkeysSection(deps),
    recoveryCodesSection(deps),
    identitiesSection(deps),
    applicationsSection(deps.store),
    sessionsSection(deps.store),
  ];
}
