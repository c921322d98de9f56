import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { pageUrl } from './authorization-flow.js';
import { requestReset, resetPassword, resetTicketHolder } from '../authn/self-service/reset.js';
import { formParams } from '../http/form-params.js';
import { type Messages, type Text } from '../pages/i18n/index.js';
import { localeOf, messagesOf } from './locale.js';
import { donePage } from '../pages/self-service/done.js';
import { resetFormPage } from '../pages/self-service/reset-form.js';
import { resetRequestPage } from '../pages/self-service/reset-request.js';
import { addressKey } from '../address-key.js';
import { countAddress, tooManyFromAddress } from '../rate-limits/rate-limits.js';
import type { RequestRealm } from '../records/realm.js';
import { TICKET_LIMITS } from '../store/tickets.js';
import { GET_ONLY, InvalidFormError } from './page-routes.js';
import { type SelfServicePageDeps, accountLink, formToken, notOffered, sendSelfServicePage, speakLikeSignIn } from './self-service.js';

const CSRF_SUBJECT = 'reset';

const linkGone = (t: Messages, realm: RequestRealm) =>
  donePage(t, { title: t.reset.linkGoneTitle, message: t.reset.linkGone, failed: true, next: { href: `${realm.issuer}/reset`, text: t.reset.askAgain } });

/**
 * `{issuer}/reset` (CONTRACT.md §9), while the realm's `password_reset` is on. Without a
 * ticket, a person names their account (username or email address) and is told the same thing,
 * with the same status and in the same time, whether or not it names anyone: the page answers
 * before anything about the person is looked up (src/authn/self-service/reset.ts). These
 * requests are limited per address as the tickets are (30 in 15 minutes), since a name that
 * names no one issues no ticket to count. With the ticket of the mail's link, the page takes
 * the new password.
 */
export function resetEndpoint(deps: SelfServicePageDeps): FastifyPluginAsync {
  const { store, cookies, flow } = deps;
  /** The work of a request for a link, begun once its answer has gone out (the route's onResponse). */
  const afterAnswer = new WeakMap<FastifyRequest, () => Promise<void>>();
  const onResponse = async (request: FastifyRequest) => {
    const work = afterAnswer.get(request);
    if (!work) return;
    afterAnswer.delete(request);
    setImmediate(() => work().catch((error: unknown) => request.log.error({ err: error }, 'password reset request failed')));
  };

  /** Every request for a link counts, whoever it names. */
  async function countRequest(request: FastifyRequest): Promise<void> {
    const key = `reset:${request.realm.name}:${addressKey(request.ip)}`;
    const { count, secondsLeft } = await store.attemptCounters.countRequest(key, TICKET_LIMITS.windowSeconds);
    if (count > TICKET_LIMITS.perAddress) throw tooManyFromAddress(secondsLeft);
  }

  function requestPage(request: FastifyRequest, reply: FastifyReply, transaction: string | undefined, error?: Text) {
    const realm = request.realm;
    const t = messagesOf(request);
    const hidden = { csrf: formToken(cookies, request, reply, CSRF_SUBJECT), ...(transaction ? { transaction } : {}) };
    const signIn = transaction && pageUrl(realm, 'login', transaction);
    return sendSelfServicePage(reply, resetRequestPage(t, { hidden, error: error?.(t), signIn }));
  }

  function formPage(request: FastifyRequest, reply: FastifyReply, ticket: string, username: string, error?: Text) {
    const t = messagesOf(request);
    const hidden = { csrf: formToken(cookies, request, reply, CSRF_SUBJECT), ticket };
    return sendSelfServicePage(reply, resetFormPage(t, { username, hidden, error: error?.(t) }));
  }

  async function setPassword(request: FastifyRequest, reply: FastifyReply, ticket: string, password: string | undefined) {
    const realm = request.realm;
    await countAddress(store.attemptCounters, request, 'sign_in');
    const outcome = await resetPassword(deps, realm, ticket, password ?? '', { address: request.ip, audit: deps.audit, locale: localeOf(request) });
    const t = messagesOf(request);
    if (outcome === 'gone') return sendSelfServicePage(reply, linkGone(t, realm));
    if (outcome !== 'done') return formPage(request, reply, ticket, outcome.username, outcome.problem);
    return sendSelfServicePage(reply, donePage(t, { title: t.reset.changedTitle, message: t.reset.changed, next: accountLink(t, realm, t.actions.signIn) }));
  }

  async function askForLink(request: FastifyRequest, reply: FastifyReply, typed: string | undefined, transaction: string | undefined) {
    const realm = request.realm;
    await countRequest(request);
    const name = typed?.trim();
    if (!name) return requestPage(request, reply, transaction, (t) => t.reset.enterName);
    // After the answer is sent: it must not wait for, or share its time with, anything that depends on whether the name is someone's.
    const requester = { address: request.ip, locale: localeOf(request) };
    afterAnswer.set(request, () => requestReset(deps, realm, name, requester));
    const t = messagesOf(request);
    const message = t.reset.checkMail(Math.max(1, Math.round(realm.settings.ticket_lifetime / 60)));
    const next = transaction ? { href: pageUrl(realm, 'login', transaction), text: t.actions.backToSignIn } : undefined;
    return sendSelfServicePage(reply, donePage(t, { title: t.reset.checkMailTitle, message, next }));
  }

  return async (app) => {
    app.get('/reset', GET_ONLY, async (request, reply) => {
      const realm = request.realm;
      if (!realm.settings.password_reset) return notOffered(flow, request, reply);
      const { ticket, transaction } = formParams(request.query, ['ticket', 'transaction']);
      if (ticket === undefined) {
        await speakLikeSignIn(flow, request, transaction);
        return requestPage(request, reply, transaction);
      }
      const username = await resetTicketHolder(deps, realm, ticket);
      return username === undefined ? sendSelfServicePage(reply, linkGone(messagesOf(request), realm)) : formPage(request, reply, ticket, username);
    });

    app.post('/reset', { onResponse }, async (request, reply) => {
      const realm = request.realm;
      if (!realm.settings.password_reset) return notOffered(flow, request, reply);
      const form = formParams(request.body, ['csrf', 'ticket', 'password', 'username', 'transaction']);
      if (!cookies.csrfTokenMatches(request, realm, CSRF_SUBJECT, form.csrf)) throw new InvalidFormError();
      if (form.ticket !== undefined) return setPassword(request, reply, form.ticket, form.password);
      await speakLikeSignIn(flow, request, form.transaction);
      return askForLink(request, reply, form.username, form.transaction);
    });
  };
}
