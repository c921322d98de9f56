import fp from 'fastify-plugin';

/** Query parameters that are safe to log; all others are left out, names and values. */
const LOGGABLE_QUERY = new Set(['response_type', 'client_id', 'redirect_uri', 'scope', 'prompt', 'response_mode', 'display']);

/** The path, and of the query only what is safe: a secret may sit in any other parameter, even in its name. */
export function redactedUrl(url: string): string {
  const question = url.indexOf('?');
  if (question === -1) return url;
  const query = new URLSearchParams(url.slice(question + 1));
  const kept = [...query].filter(([name]) => LOGGABLE_QUERY.has(name));
  const omitted = [...query.keys()].length - kept.length;
  const parts = kept.map(([name, value]) => `${name}=${encodeURIComponent(value)}`);
  if (omitted > 0) parts.push(`[${omitted} more]`);
  return `${url.slice(0, question)}?${parts.join('&')}`;
}

/** One line per request, when it completes: what was asked, how it ended, how long it took. */
export const requestLog = fp(
  async (app) => {
    app.addHook('onResponse', async (request, reply) => {
      request.log.info(
        {
          method: request.method,
          url: redactedUrl(request.url),
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime * 10) / 10,
          ip: request.ip,
        },
        'request',
      );
    });
  },
  { name: 'realmgate-request-log' },
);
