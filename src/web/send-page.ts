import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SafeHtml } from '../pages/html.js';
import { type PageOptions, renderPage } from '../pages/layout.js';

/**
 * Sends a page (src/pages/layout.ts renderPage) in the branding of the request's realm; a
 * request that failed before its realm was known (an unknown realm) gets the default look.
 */
export function sendPage(reply: FastifyReply, options: PageOptions, body: SafeHtml): FastifyReply {
  const page = renderPage(reply.request.realm ?? undefined, options, body, pageAddress(reply.request));
  return reply.code(page.status).headers(page.headers).send(page.html);
}

/**
 * What a page's address must keep for the same page to come back in another language (the
 * language picker): its query, or for a page that answered a form, the form's fields that name
 * what it is about.
 */
const CARRIED_FORM_FIELDS = ['transaction', 'ticket', 'user_code'] as const;

function pageAddress(request: FastifyRequest): URLSearchParams {
  const carried = new URLSearchParams();
  const source = request.method === 'GET' ? request.query : request.body;
  if (typeof source !== 'object' || source === null) return carried;
  const fields = request.method === 'GET' ? Object.keys(source) : CARRIED_FORM_FIELDS;
  for (const name of fields) {
    const value = (source as Record<string, unknown>)[name];
    if (typeof value === 'string' && name !== 'ui_locales') carried.append(name, value);
  }
  return carried;
}
