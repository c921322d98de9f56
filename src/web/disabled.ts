import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendFailurePage, wayBackOfTransaction } from './failure-page.js';
import { messagesOf } from './locale.js';
import type { ResumedTransaction } from './transaction.js';

/**
 * The page that ends a sign-in of a disabled person (CONTRACT.md §10). It is shown only once
 * their credentials passed, as Keycloak does: a wrong password reads as any other.
 */
export function sendAccountDisabled(request: FastifyRequest, reply: FastifyReply, resumed: ResumedTransaction | undefined) {
  return sendCannotSignIn(request, reply, 'accountDisabled', resumed);
}

/** The page that ends a sign-in whose session could not begin: the person was disabled, or their password changed meanwhile. */
export function sendCannotSignIn(
  request: FastifyRequest,
  reply: FastifyReply,
  why: 'accountDisabled' | 'passwordChangedDuringSignIn',
  resumed: ResumedTransaction | undefined,
) {
  const t = messagesOf(request);
  const page = { title: t.errors.cannotSignIn, message: t.errors[why], status: 403, error: why === 'accountDisabled' ? 'account_disabled' : 'password_changed' };
  return sendFailurePage(request, reply, page, wayBackOfTransaction(request, resumed));
}
