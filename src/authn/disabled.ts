import type { FastifyReply } from 'fastify';
import { messagePage } from '../pages/forms.js';
import { sendPage } from '../pages/layout.js';

/**
 * What a disabled person reads wherever they try to sign in (CONTRACT.md §10). It is shown only
 * once their credentials passed, as Keycloak does: a wrong password reads as any other.
 */
export const ACCOUNT_DISABLED = 'This account is disabled. Ask the administrator of this service.';

/** The page that ends a sign-in of a disabled person. */
export function sendAccountDisabled(reply: FastifyReply, realm: string) {
  const page = messagePage({ realm, title: 'Cannot sign in', message: ACCOUNT_DISABLED, status: 403 });
  return sendPage(reply, page.options, page.body);
}
