import type { FastifyRequest } from 'fastify';
import { askForLocales, chosenLocaleOf } from './locale.js';
import type { AuthorizationTransaction } from '../store/authorization-flow.js';
import type { Store } from '../store/index.js';
import type { Session } from '../store/sessions.js';

/**
 * The language follows the person (CONTRACT.md §16): a page's language picker (`?ui_locales=`)
 * changes the language of the sign-in it continues and of the browser's session, so that the
 * pages after it (and the mails they send) speak it too. A language is no secret and changes
 * nothing else, so a link may choose it.
 */

/** The sign-in's pages speak the language its pages chose, else the one its request asked for. */
export async function followFlowLocale(store: Pick<Store, 'authorizationFlow'>, request: FastifyRequest, idHash: Buffer, transaction: AuthorizationTransaction): Promise<void> {
  const chosen = chosenLocaleOf(request);
  if (chosen !== undefined && chosen !== transaction.locale) await store.authorizationFlow.setLocale(idHash, chosen);
  const { purpose } = transaction;
  const kept = chosen ?? transaction.locale;
  askForLocales(request, kept !== undefined ? [kept] : purpose.kind === 'authorize' ? purpose.request.uiLocales : undefined);
}

/** The pages of a signed-in person speak the session's language, which a page's picker changes. */
export async function followSessionLocale(store: Pick<Store, 'sessions'>, request: FastifyRequest, secretHash: Buffer, session: Session | undefined): Promise<void> {
  if (!session) return;
  const chosen = chosenLocaleOf(request);
  if (chosen !== undefined && chosen !== session.locale) await store.sessions.setLocale(secretHash, chosen);
  const kept = chosen ?? session.locale;
  if (kept !== undefined) request.sessionLocale = kept;
}
