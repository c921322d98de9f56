import type { FastifyReply } from 'fastify';
import type { SafeHtml } from '../pages/html.js';
import { type PageOptions, renderPage } from '../pages/layout.js';

/**
 * Sends a page (src/pages/layout.ts renderPage) in the branding of the request's realm; a
 * request that failed before its realm was known (an unknown realm) gets the default look.
 */
export function sendPage(reply: FastifyReply, options: PageOptions, body: SafeHtml): FastifyReply {
  const page = renderPage(reply.request.realm ?? undefined, options, body);
  return reply.code(page.status).headers(page.headers).send(page.html);
}
