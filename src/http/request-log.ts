import type { FastifyBaseLogger } from 'fastify';
import fp from 'fastify-plugin';
import { levels } from 'pino';

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

const infoLogged = (log: FastifyBaseLogger): boolean => (levels.values[log.level] ?? 0) <= levels.values.info!;

/** One line per request, when it completes: what was asked, how it ended, how long it took. */
export const requestLog = fp(
  async (app) => {
    // A callback hook, and the line's fields built only when info lines are written: every request passes here.
    app.addHook('onResponse', (request, reply, done) => {
      if (infoLogged(request.log)) {
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
      }
      done();
    });
  },
  { name: 'realmgate-request-log' },
);
