import type { AuditTrail } from '../audit/audit-trail.js';
import type { Mailer } from '../mail/mailer.js';
import type { Store } from '../store/index.js';
import type { KeyEncryption } from '../tokens/key-encryption.js';
import type { SectorIdentifierFetcher } from '../clients/sector-identifier.js';
import type { OutboundFetcher } from '../http/outbound-fetch.js';
import type { PasswordHashing } from '../authn/password-hashing.js';
import type { KeyPairSource } from '../tokens/signing-keys.js';

/** What the admin API's route plugins are built from. */
export interface AdminDeps {
  store: Store;
  /** The audit trail: what an admin changes, and its flush before the events are read. */
  audit: AuditTrail;
  encryption: KeyEncryption;
  baseUrl: string;
  /** Outgoing mail; none without `SMTP_URL`, and then no realm may turn on what sends mail. */
  mailer: Mailer | undefined;
  /** Checks the `sector_identifier_uri` a client record sets (OpenID Connect Registration §5). */
  sectorIdentifiers: Pick<SectorIdentifierFetcher, 'problem'>;
  /** Judges the URLs an admin saves that the server will call (webhooks): the SSRF guard, `OUTBOUND_ALLOW`. */
  outbound: Pick<OutboundFetcher, 'admits'>;
  /** argon2id's cost for new passwords (src/authn/password-hashing.ts). */
  passwordHashing: PasswordHashing;
  /** Where the key pairs of new realms and rotations come from (src/tokens/signing-keys.ts). */
  keyPairs: KeyPairSource;
}
