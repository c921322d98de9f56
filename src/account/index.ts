import type { Store } from '../store/index.js';
import type { KeyEncryption } from '../tokens/key-encryption.js';
import type { AccountSection } from './section.js';

/** What the sections need to show and change what they manage. */
export interface AccountSectionDeps {
  store: Store;
  encryption: KeyEncryption;
  /** BASE_URL: passkeys are bound to its origin. */
  baseUrl: string;
}

/** The sections of the account page, in the order they are shown. */
export function accountSections(deps: AccountSectionDeps): AccountSection[] {
  void deps;
  return [];
}
