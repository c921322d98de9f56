import { issuerOf } from '../records/realm-names.js';
import type { OutboxEntry } from '../store/outbox.js';
import type { RealmSigner } from '../tokens/signer.js';
import type { SubjectClient, Subjects } from '../tokens/subject.js';
import { SIGNING_ALGS, type SigningAlg } from '../records/signing-key.js';
import type { OutboxSender } from './deliverer.js';

/** OpenID Connect Back-Channel Logout 1.0 §2.4: the event a logout token carries. */
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
/** CONTRACT.md §12: a logout token expires at most 2 minutes after it is signed. */
const LOGOUT_TOKEN_LIFETIME_SECONDS = 120;

/** What src/store/session-endings.ts queued. */
interface LogoutPayload {
  client_id: string;
  sub: string;
  sid: string;
  jti: string;
  alg: string;
  /** What of the client decides the `sub` it sees; absent from deliveries queued before pairwise subjects, which were public. */
  subject?: Partial<Pick<SubjectClient, 'subject_type' | 'sector_identifier_uri' | 'redirect_uris'>>;
}

/** OpenID Connect Core §8: the person as the client sees them, as its record was when the session ended. */
function subjectOf(subjects: Pick<Subjects, 'for'>, realm: string, payload: LogoutPayload): string {
  const { subject_type, sector_identifier_uri, redirect_uris } = payload.subject ?? {};
  if (subject_type !== 'pairwise') return payload.sub;
  const client = { realm, client_id: payload.client_id, subject_type, redirect_uris: redirect_uris ?? [], ...(sector_identifier_uri ? { sector_identifier_uri } : {}) };
  return subjects.for(client, payload.sub);
}

/**
 * Sends a queued back-channel logout (§2.5): a form POST of `logout_token`, a JWT of type
 * `logout+jwt` signed with the realm's key of the client's `id_token_signed_response_alg`.
 * It is signed at each try, so that one tried again an hour later has not expired, and
 * carries the `jti` drawn when it was queued, so that the receiver sees the same token again.
 */
export function backchannelLogoutSender(signer: RealmSigner, subjects: Pick<Subjects, 'for'>, baseUrl: string): OutboxSender {
  return {
    async request(entry: OutboxEntry) {
      const payload = entry.payload as unknown as LogoutPayload;
      const alg: SigningAlg = (SIGNING_ALGS as readonly string[]).includes(payload.alg) ? (payload.alg as SigningAlg) : 'RS256';
      const now = Math.floor(Date.now() / 1000);
      const token = await signer.sign(
        entry.realm,
        alg,
        {
          iss: issuerOf(baseUrl, entry.realm),
          aud: payload.client_id,
          iat: now,
          exp: now + LOGOUT_TOKEN_LIFETIME_SECONDS,
          jti: payload.jti,
          sub: subjectOf(subjects, entry.realm, payload),
          sid: payload.sid,
          events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
        },
        'logout+jwt',
      );
      return { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ logout_token: token }).toString() };
    },
  };
}
