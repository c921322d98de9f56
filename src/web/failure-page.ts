import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { describedByDocument } from '../clients/metadata-document-url.js';
import { clientBrand } from '../pages/branding.js';
import { type WayBack, errorPage } from '../pages/error-page.js';
import type { Client } from '../store/clients.js';
import { localeOf, messagesOf } from './locale.js';
import { sendPage } from './send-page.js';
import type { ResumedTransaction } from './transaction.js';

/** The origin of a registered redirect URI, where the application lives; none for a native app's scheme. */
function applicationOrigin(redirectUri: string): string | undefined {
  try {
    const url = new URL(redirectUri);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The way back to a client through a redirect URI it registered exactly: the link goes to that
 * URI's origin, never to an address a request wrote; an unregistered URI gives none.
 */
export function wayBackTo(request: FastifyRequest, client: Client | undefined, redirectUri: string | undefined): WayBack | undefined {
  if (!client || redirectUri === undefined || !client.redirect_uris.includes(redirectUri)) return undefined;
  const url = applicationOrigin(redirectUri);
  return url === undefined ? undefined : { clientName: clientBrand(client, describedByDocument(client), localeOf(request)).name, url };
}

/** The way back of a sign-in transaction that an authorization request began; none for a plain sign-in. */
export function wayBackOfTransaction(request: FastifyRequest, resumed: ResumedTransaction | undefined): WayBack | undefined {
  const purpose = resumed?.transaction.purpose;
  return purpose?.kind === 'authorize' ? wayBackTo(request, resumed?.client, purpose.request.redirectUri) : undefined;
}

/**
 * Any page that tells a person something went wrong (CONTRACT.md §16): what happened, a
 * reference that one line of the log carries beside the request's id, so that support finds
 * what happened from what the person quotes, and the way back when it is known.
 */
export function sendFailurePage(
  request: FastifyRequest,
  reply: FastifyReply,
  page: { title: string; message: string; status: number; error?: string },
  wayBack: WayBack | undefined,
): FastifyReply {
  const reference = randomBytes(6).toString('hex');
  request.log[page.status >= 500 ? 'error' : 'info']({ reference, status: page.status, error: page.error }, 'error page');
  const view = errorPage(messagesOf(request), { title: page.title, message: page.message, status: page.status, reference, wayBack });
  return sendPage(reply, view.options, view.body);
}
