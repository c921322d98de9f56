import formBody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import { withOutboundSpend } from '../http/outbound-budget.js';
import type { RateLimits } from '../rate-limits/rate-limits.js';
import type { RealmStore } from '../store/realms.js';
import { resolveRealmFromPath } from './resolve.js';

/** Form bodies of OAuth endpoints are small; SAML assertions are the largest expected. */
export const OAUTH_BODY_LIMIT = 64 * 1024;

/**
 * What every route below a realm's issuer path shares, the JSON protocol endpoints' and the
 * browser wing's (mounted at `/oauth2` for the root realm and `/oauth2/:realm` for the others):
 * the realm the path names, form-encoded bodies only, responses `no-store` unless a route says
 * otherwise, and the fetches a request causes counted under its rate limit.
 */
export async function belowIssuerPath(
  app: FastifyInstance,
  deps: { realms: RealmStore; baseUrl: string; rateLimits: Pick<RateLimits, 'outboundFetch'> },
): Promise<void> {
  resolveRealmFromPath(app, deps.realms, deps.baseUrl, 'endpoints');
  // What a request causes to be fetched (a client_id URL's document, its keys, an upstream's
  // discovery) is counted under its rate limit first (src/http/outbound-budget.ts). Set once
  // the body is read, so that the handler and everything it awaits run within it.
  app.addHook('preValidation', (request, _reply, done) => withOutboundSpend(() => deps.rateLimits.outboundFetch(request), done));
  app.removeAllContentTypeParsers();
  await app.register(formBody, { bodyLimit: OAUTH_BODY_LIMIT });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    done(null, payload);
  });
}
