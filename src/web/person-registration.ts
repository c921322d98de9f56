import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { type ResumedTransaction, formTargetsOf, pageUrl } from './authorization-flow.js';
import type { BruteForceGuard } from '../authn/brute-force.js';
import type { SignInNodes } from '../authn/nodes/index.js';
import { SignInCore } from '../authn/sign-in.js';
import type { Mailed } from '../authn/self-service/verification.js';
import { REGISTRATION_FIELDS, type RegistrationForm, register } from '../authn/self-service/person-registration.js';
import type { RiskAssessor } from '../authn/risk.js';
import { storedWalkOf } from '../authn/transaction-journey.js';
import { formParams } from '../http/form-params.js';
import { type Messages } from '../pages/i18n/index.js';
import { localeOf, messagesOf } from './locale.js';
import { donePage } from '../pages/self-service/done.js';
import { type RegistrationKept, registrationPage } from '../pages/self-service/person-registration.js';
import { countAddress } from '../rate-limits/rate-limits.js';
import { sha256 } from '../secrets.js';
import { GET_ONLY, InvalidFormError } from './page-routes.js';
import { type SelfServicePageDeps, accountLink, formToken, notOffered, sendSelfServicePage } from './self-service.js';

const CSRF_SUBJECT = 'register';

const keptOf = (form: RegistrationForm): RegistrationKept => ({
  username: form.username ?? '',
  email: form.email ?? '',
  given_name: form.given_name ?? '',
  family_name: form.family_name ?? '',
});

/** What the person reads once the account exists, by what became of the verification mail. */
function createdMessage(t: Messages, mailed: Mailed | undefined, email: string): string {
  if (mailed === undefined) return t.register.created;
  if (mailed === 'sent') return t.register.createdMailSent(email);
  return t.register.createdMailFailed;
}

/**
 * `{issuer}/register` (CONTRACT.md §9), while the realm's `self_registration` is on: a new
 * person creates their account (src/authn/self-service/person-registration.ts). Reached from a
 * sign-in (its transaction carried along), the new person goes on signed in there, as if
 * they had passed its password node; otherwise a page says the account exists. Posts count
 * against the address's limit of the sign-in pages.
 */
export function personRegistrationPage(deps: SelfServicePageDeps & { risk: RiskAssessor; nodes: SignInNodes; bruteForce: BruteForceGuard }): FastifyPluginAsync {
  const { store, flow, cookies } = deps;

  function show(request: FastifyRequest, reply: FastifyReply, resumed: ResumedTransaction | undefined, kept: RegistrationKept, error?: string) {
    const realm = request.realm;
    const hidden = { csrf: formToken(cookies, request, reply, CSRF_SUBJECT), ...(resumed ? { transaction: resumed.id } : {}) };
    const signIn = resumed && pageUrl(realm, 'login', resumed.id);
    const page = registrationPage(messagesOf(request), { hidden, kept, error, signIn });
    // The form's answer may lead on, through the sign-in, to the client's redirect URI: CSP
    // form-action holds for the redirects after a submission too (CSP Level 3 §6.3.1).
    const formTargets = resumed ? formTargetsOf(resumed.transaction.purpose) : [];
    return sendSelfServicePage(reply, { ...page, options: { ...page.options, formTargets } });
  }

  const resumeOf = (request: FastifyRequest, transaction: string | undefined) =>
    transaction === undefined ? undefined : flow.resume(request, request.realm, transaction);

  /**
   * The sign-in goes on as the new person's when it waits for someone to say who they are
   * (a password or a `register` node): that node passes with `pwd`. Undefined when it cannot.
   */
  async function continueSignIn(core: SignInCore, request: FastifyRequest, reply: FastifyReply, resumed: ResumedTransaction, userId: string): Promise<string | undefined> {
    const realm = request.realm;
    const stored = storedWalkOf(realm, resumed);
    if (!stored) return undefined;
    const signIn = {
      realm,
      address: request.ip,
      via: 'sign_in_page',
      clientId: resumed.client?.client_id,
      transactionId: resumed.id,
      locale: localeOf(request),
      log: request.log,
      device: () => cookies.device(request, reply, realm),
    } as const;
    // The nodes decided before anyone is known (a condition on the client) are taken, as the sign-in page takes them.
    const progress = core.registered(await core.resume(signIn, stored.selected, stored.progress), userId);
    if (!progress) return undefined;
    await store.authorizationFlow.saveProgress(sha256(resumed.id), progress);
    return pageUrl(realm, 'login', resumed.id);
  }

  return async (app) => {
    const core = new SignInCore({ store, nodes: deps.nodes, bruteForce: deps.bruteForce, risk: deps.risk, audit: deps.audit });
    app.get('/register', GET_ONLY, async (request, reply) => {
      if (!request.realm.settings.self_registration) return notOffered(flow, request, reply);
      const resumed = await resumeOf(request, formParams(request.query, ['transaction']).transaction);
      return show(request, reply, resumed, keptOf({}));
    });

    app.post('/register', async (request, reply) => {
      const realm = request.realm;
      if (!realm.settings.self_registration) return notOffered(flow, request, reply);
      const form = formParams(request.body, ['csrf', 'transaction', ...REGISTRATION_FIELDS]);
      if (!cookies.csrfTokenMatches(request, realm, CSRF_SUBJECT, form.csrf)) throw new InvalidFormError();
      const resumed = await resumeOf(request, form.transaction);
      await countAddress(store.attemptCounters, request, 'sign_in');
      const t = messagesOf(request);
      const registration = await register(deps, realm, form, { address: request.ip, audit: deps.audit, locale: localeOf(request), via: 'register_page' });
      if ('problems' in registration) return show(request, reply, resumed, keptOf(form), registration.problems.map((problem) => problem(t)).join(' '));

      // An address that is someone's already creates no one, and reads as a registration whose sign-in cannot go on.
      const signIn = resumed && 'user' in registration && (await continueSignIn(core, request, reply, resumed, registration.user.id));
      if (signIn) return reply.redirect(signIn, 303);
      const page = donePage(t, {
        title: t.register.createdTitle,
        message: createdMessage(t, registration.mailed, form.email!.trim()),
        next: resumed ? { href: pageUrl(realm, 'login', resumed.id), text: t.actions.backToSignIn } : accountLink(t, realm, t.actions.signIn),
      });
      return sendSelfServicePage(reply, page);
    });
  };
}
