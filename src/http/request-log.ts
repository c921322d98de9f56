import fp from 'fastify-plugin';

/** Query parameters whose values are safe to log; every other value is redacted. */
const LOGGABLE_QUERY = new Set(['response_type', 'client_id', 'redirect_uri', 'scope', 'prompt', 'response_mode', 'display']);

export function redactedUrl(url: string): string {
  const question = url.indexOf('?');
  if (question === -1) return url;
  const query = new URLSearchParams(url.slice(question + 1));
  const parts: string[] = [];
  for (const [name, value] of query) {
    parts.push(`${encodeURIComponent(name)}=${LOGGABLE_QUERY.has(name) ? encodeURIComponent(value) : '[redacted]'}`);
  }
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
