import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SafeHtml } from '../pages/html.js';
import { type PageOptions, renderPage } from '../pages/layout.js';

/**
 * Sends a page (src/pages/layout.ts renderPage) in the branding of the request's realm; a
 * request that failed before its realm was known (an unknown realm) gets the default look.
 */
export function sendPage(reply: FastifyReply, options: PageOptions, body: SafeHtml): FastifyReply {
  const realm = reply.request.realm ?? undefined;
  const page = renderPage(realm, options, body, pageAddress(reply.request), realm?.issuer);
  return reply.code(page.status).headers(page.headers).send(page.html);
}

/**
 * What a page's address must keep for the same page to come back in another language (the
 * language picker): the fields of its query or form that name what the page is about, and no
 * other. The rest of a query is the caller's to write (an /authorize request's redirect_uri, a
 * notice's text), and a page must not repeat it as a link of its own.
 */
const CARRIED_FIELDS = ['transaction', 'ticket', 'user_code'] as const;

function pageAddress(request: FastifyRequest): URLSearchParams {
  const carried = new URLSearchParams();
  const source = request.method === 'GET' ? request.query : request.body;
  if (typeof source !== 'object' || source === null) return carried;
  for (const name of CARRIED_FIELDS) {
    const value = (source as Record<string, unknown>)[name];
    if (typeof value === 'string') carried.append(name, value);
  }
  return carried;
}
