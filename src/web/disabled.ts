import type { FastifyReply, FastifyRequest } from 'fastify';
import { messagePage } from '../pages/forms.js';
import { messagesOf } from './locale.js';
import { sendPage } from './send-page.js';

/**
 * The page that ends a sign-in of a disabled person (CONTRACT.md §10). It is shown only once
 * their credentials passed, as Keycloak does: a wrong password reads as any other.
 */
export function sendAccountDisabled(request: FastifyRequest, reply: FastifyReply) {
  return sendCannotSignIn(request, reply, 'accountDisabled');
}

/** The page that ends a sign-in whose session could not begin: the person was disabled, or their password changed meanwhile. */
export function sendCannotSignIn(request: FastifyRequest, reply: FastifyReply, why: 'accountDisabled' | 'passwordChangedDuringSignIn') {
  const t = messagesOf(request);
  const page = messagePage(t, { title: t.errors.cannotSignIn, message: t.errors[why], status: 403 });
  return sendPage(reply, page.options, page.body);
}
