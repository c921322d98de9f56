import { OutboundError, OutboundFetcher } from '../http/outbound-fetch.js';

/** How long the realm's notification URL has to answer; then the request is abandoned. */
export const NOTIFICATION_TIMEOUT_MS = 3_000;
/** The receiver's answer is read (and dropped) up to this size. */
const NOTIFICATION_ANSWER_MAX_BYTES = 64 * 1024;

/**
 * What a realm's `ciba_notification_url` receives for each new CIBA request, so that the
 * person can be told to approve it at `approve_url`. It names the request by its public id;
 * the `auth_req_id` the client polls with is never sent.
 */
export interface CibaNotification {
  realm: string;
  request_id: string;
  client_id: string;
  client_name: string;
  /** Space-separated, as OAuth writes scopes. */
  scope: string;
  binding_message: string | null;
  username: string;
  approve_url: string;
  /** ISO 8601. */
  expires_at: string;
}

export interface NotificationLogger {
  warn(object: object, message: string): void;
}

export interface NotificationOptions {
  /** The SSRF-guarded fetcher with the operator's `OUTBOUND_ALLOW`; by default one that allows nothing more. */
  outbound?: OutboundFetcher;
  timeoutMs?: number;
}

const unlisted = new OutboundFetcher();

/**
 * POSTs the notification as JSON. It never rejects and is not awaited by the endpoint: a slow
 * or failing receiver must not delay nor fail the client's answer (CIBA Core §7.3 answers at
 * once). Failures are logged with the URL's origin only, as its path or query may hold a
 * credential of the receiver. The URL goes through the outbound fetcher, whose guard keeps
 * it out of the server's own network unless `OUTBOUND_ALLOW` lets it in.
 */
export async function sendCibaNotification(
  url: string,
  notification: CibaNotification,
  logger: NotificationLogger,
  options: NotificationOptions = {},
): Promise<void> {
  const context = { realm: notification.realm, request_id: notification.request_id, notification_origin: originOf(url) };
  try {
    // An admin set the URL; a redirect is a misconfiguration to report, not to follow (the fetcher never follows).
    const response = await (options.outbound ?? unlisted).fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(notification),
      timeoutMs: options.timeoutMs ?? NOTIFICATION_TIMEOUT_MS,
      maxBytes: NOTIFICATION_ANSWER_MAX_BYTES,
      uncounted: true,
    });
    if (response.status < 200 || response.status >= 300) logger.warn({ ...context, status: response.status }, 'CIBA notification refused');
  } catch (error) {
    logger.warn({ ...context, reason: reasonOf(error) }, 'CIBA notification failed');
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'invalid URL';
  }
}

/** The fetcher's reason (refused_address, timeout, network: ECONNREFUSED…), which never quotes the URL. */
function reasonOf(error: unknown): string {
  if (error instanceof OutboundError) return error.failure === 'network' ? `network: ${error.message}` : error.failure;
  return error instanceof Error ? error.name : 'unknown';
}
