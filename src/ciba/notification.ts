/** How long the realm's notification URL has to answer; then the request is abandoned. */
export const NOTIFICATION_TIMEOUT_MS = 3_000;

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

/**
 * POSTs the notification as JSON. It never rejects and is not awaited by the endpoint: a slow
 * or failing receiver must not delay nor fail the client's answer (CIBA Core §7.3 answers at
 * once). Failures are logged with the URL's origin only, as its path or query may hold a
 * credential of the receiver.
 */
export async function sendCibaNotification(
  url: string,
  notification: CibaNotification,
  logger: NotificationLogger,
  timeoutMs = NOTIFICATION_TIMEOUT_MS,
): Promise<void> {
  const context = { realm: notification.realm, request_id: notification.request_id, notification_origin: originOf(url) };
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(notification),
      // An admin set the URL; a redirect is a misconfiguration to report, not to follow.
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body?.cancel().catch(() => {});
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

/** The error's name and code (ECONNREFUSED, TimeoutError…), not its message, which may quote the URL. */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return 'unknown';
  const cause = error.cause as { code?: unknown } | undefined;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  return code === undefined ? error.name : `${error.name}: ${code}`;
}
