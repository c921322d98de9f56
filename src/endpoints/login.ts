import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { type SignInAttempt, recordSignInFailed, recordSignInSucceeded } from '../audit/sign-in.js';
import { type AuthorizationFlow, type ResumedTransaction, SESSION_LIFETIME_SECONDS, formTargetsOf } from '../authn/authorization-flow.js';
import type { BrowserCookies } from '../authn/browser.js';
import type { BruteForceGuard } from '../authn/brute-force.js';
import type { RiskAssessor } from '../authn/risk.js';
import {
  type SignInProgress,
  type SignInStep,
  type StepContext,
  advance,
  finalAmr,
  nextStep,
  skipRest,
} from '../authn/steps.js';
import { randomSecret, sha256 } from '../crypto/hash.js';
import { formParams } from '../http/form-params.js';
import { messagePage, signInPage } from '../pages/forms.js';
import { sendPage } from '../pages/layout.js';
import { countAddress } from '../rate-limits/rate-limits.js';
import type { RequestRealm } from '../realms/resolve.js';
import type { AuthenticationStep } from '../realms/settings.js';
import type { Store } from '../store/index.js';
import { GET_ONLY, InvalidFormError } from './page-routes.js';

export interface SignInDeps {
  store: Store;
  flow: AuthorizationFlow;
  cookies: BrowserCookies;
  /** The steps this server can run, by name (src/authn/steps/). */
  steps: readonly SignInStep[];
  bruteForce: BruteForceGuard;
  risk: RiskAssessor;
}

const TITLES: Readonly<Record<SignInStep['name'], string>> = { password: 'Sign in', otp: 'One-time code', passkey: 'Passkey' };
const UNAVAILABLE = 'This realm asks for a sign-in method that is not available here.';

/**
 * The sign-in page of a transaction: it runs the realm's `authentication` steps in order
 * (CONTRACT.md §4, §5), one page per step, with the progress kept in the transaction so
 * that any instance serves the next page. Each step's check takes a place within the
 * brute-force limits per account and per address before it runs (src/authn/brute-force.ts);
 * the `risk` step decides, without a page, whether the steps after it are needed. When every
 * step is done, a session starts (stored in the database, its secret in a cookie) with the
 * methods that passed as its `amr`.
 */
export function loginPage(deps: SignInDeps): FastifyPluginAsync {
  const { store, flow, cookies, bruteForce, risk } = deps;
  const stepsByName = new Map(deps.steps.map((step) => [step.name, step]));
  const formFields = ['transaction', 'csrf', 'step', ...new Set(deps.steps.flatMap((step) => step.fields))];

  function contextOf(request: FastifyRequest, resumed: ResumedTransaction, step: AuthenticationStep): StepContext {
    const realm = request.realm;
    return {
      request,
      realm,
      transactionId: resumed.id,
      progress: resumed.transaction.progress,
      hidden: { transaction: resumed.id, csrf: cookies.csrfToken(resumed.browserHash, resumed.id), step },
    };
  }

  /** The page of the current step, with the other ways through it. */
  async function showStep(
    request: FastifyRequest,
    reply: FastifyReply,
    resumed: ResumedTransaction,
    shown: { error?: string; username?: string | undefined; status?: number } = {},
  ) {
    const realm = request.realm;
    const current = nextStep(realm.settings.authentication, resumed.transaction.progress);
    const step = current === undefined || current === 'risk' ? undefined : stepsByName.get(current);
    if (!step) {
      const view = messagePage({ realm: realm.name, title: 'Cannot sign in', message: UNAVAILABLE, status: 400 });
      return sendPage(reply, view.options, view.body);
    }
    const context = contextOf(request, resumed, step.name);
    const page = await step.render(context, { ...(shown.username ? { username: shown.username } : {}) });
    const alternatives = [];
    for (const other of deps.steps) {
      if (other === step || !realm.settings.authentication.includes(other.name)) continue;
      const alternative = await other.alternativeTo?.(step.name, { ...context, hidden: { ...context.hidden, step: other.name } });
      if (alternative) alternatives.push({ step: other.name, page: alternative });
    }
    const view = signInPage({
      realm: realm.name,
      title: TITLES[step.name],
      hidden: context.hidden,
      step: { body: page.body, hidden: {} },
      alternatives: alternatives.map(({ step: name, page: alternative }) => ({ body: alternative.body, hidden: { step: name } })),
      ...(shown.error === undefined ? {} : { error: shown.error }),
      ...(shown.status === undefined ? {} : { status: shown.status }),
      formTargets: formTargetsOf(resumed.transaction.purpose),
      scripts: [...new Set([page, ...alternatives.map((alternative) => alternative.page)].flatMap((part) => part.scripts ?? []))],
    });
    return sendPage(reply, view.options, view.body);
  }

  /** Runs the risk step, if it is next: it passes, or it skips the steps after it. */
  async function throughRisk(request: FastifyRequest, reply: FastifyReply, progress: SignInProgress): Promise<SignInProgress> {
    const realm = request.realm;
    const steps = realm.settings.authentication;
    if (nextStep(steps, progress) !== 'risk' || progress.userId === undefined) return progress;
    const username = (await store.users.usernameOf(realm.name, progress.userId)) ?? '';
    const source = { device: cookies.device(request, reply, realm), address: request.ip };
    const needed = await risk.needsMoreSteps(realm, { userId: progress.userId, username }, source);
    return needed ? { ...progress, done: [...progress.done, 'risk'] } : skipRest(steps, progress);
  }

  /** Every step is done: the session starts, and the flow goes on. */
  async function signedIn(request: FastifyRequest, reply: FastifyReply, resumed: ResumedTransaction, progress: SignInProgress) {
    const realm = request.realm;
    const userId = progress.userId!;
    // A new sign-in replaces the browser's previous session (no session fixation).
    const previous = cookies.sessionSecret(request, realm);
    if (previous !== undefined) await store.sessions.delete(sha256(previous));
    const secret = randomSecret();
    const session = await store.sessions.create(sha256(secret), {
      realm: realm.name,
      userId,
      authTime: new Date(),
      amr: finalAmr(progress.amr),
      lifetimeSeconds: SESSION_LIFETIME_SECONDS,
    });
    cookies.setSession(reply, realm, secret, SESSION_LIFETIME_SECONDS);
    await risk.remember(realm, userId, { device: cookies.device(request, reply, realm), address: request.ip });
    recordSignInSucceeded(request.server.audit, attemptOf(request, resumed), { userId, amr: session.amr });
    return flow.continueAfterSignIn(reply, realm, resumed, session);
  }

  return async (app) => {
    app.get('/login', GET_ONLY, async (request, reply) => {
      const resumed = await flow.resume(request, request.realm, formParams(request.query, ['transaction']).transaction);
      // Each page of a realm with passkeys stores a challenge: counted like the transactions (README "Rate limits").
      if (request.realm.settings.authentication.includes('passkey')) await countAddress(store.attemptCounters, request, 'authorize');
      const { purpose } = resumed.transaction;
      return showStep(request, reply, resumed, { username: purpose.kind === 'authorize' ? purpose.request.loginHint : undefined });
    });

    app.post('/login', async (request, reply) => {
      const realm = request.realm;
      const form = formParams(request.body, formFields);
      const resumed = await flow.resume(request, realm, form.transaction);
      if (!cookies.csrfTokenMatches(request, realm, resumed.id, form.csrf)) throw new InvalidFormError();

      const steps = realm.settings.authentication;
      const { progress } = resumed.transaction;
      const current = nextStep(steps, progress);
      const posted = form.step === undefined ? undefined : stepsByName.get(form.step as SignInStep['name']);
      // A form of a step that is not (or no longer) the current one, nor offered beside it: show the current step.
      if (!posted || current === undefined || !steps.includes(posted.name)) return showStep(request, reply, resumed);
      if (posted.name !== current && !(await posted.alternativeTo?.(current, contextOf(request, resumed, posted.name)))) {
        return showStep(request, reply, resumed);
      }

      const account = progress.userId ? await store.users.usernameOf(realm.name, progress.userId) : posted.account?.(form);
      const again = (error: string, extra: { status?: number } = {}) => showStep(request, reply, resumed, { error, username: form.username, ...extra });
      // The check is counted before it runs (CONTRACT.md §7): past the limit nothing is checked.
      const check = await bruteForce.reserve(realm, account, request.ip);
      if ('lockedFor' in check) {
        const wait = check.lockedFor;
        recordSignInFailed(app.audit, attemptOf(request, resumed), { step: posted.name, username: account, userId: progress.userId, reason: 'locked' });
        reply.header('retry-after', String(wait));
        const minutes = Math.ceil(wait / 60);
        return again(`Too many failed sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, { status: 429 });
      }

      // A check that throws keeps its place: only an answer gives it back.
      const outcome = await posted.submit(contextOf(request, resumed, posted.name), form);
      if ('error' in outcome && outcome.failure) {
        app.metrics.signIns.inc({ outcome: 'failure' });
        recordSignInFailed(app.audit, attemptOf(request, resumed), {
          step: posted.name,
          username: account,
          userId: progress.userId,
          reason: 'wrong_credentials',
        });
        await bruteForce.failed(check);
        return again(outcome.error);
      }
      await bruteForce.passed(check);
      if ('again' in outcome) return reply.redirect(loginUrl(realm, resumed.id), 303);
      if ('error' in outcome) return again(outcome.error);
      const { passed } = outcome;
      if (progress.userId !== undefined && passed.userId !== progress.userId) throw new InvalidFormError();

      const advanced = await throughRisk(request, reply, advance(steps, progress, posted.name, passed));
      if (nextStep(steps, advanced) === undefined) {
        app.metrics.signIns.inc({ outcome: 'success' });
        return signedIn(request, reply, resumed, advanced);
      }
      await store.authorizationFlow.saveProgress(sha256(resumed.id), advanced);
      return reply.redirect(loginUrl(realm, resumed.id), 303);
    });
  };
}

function loginUrl(realm: RequestRealm, transactionId: string): string {
  return `${realm.issuer}/login?transaction=${encodeURIComponent(transactionId)}`;
}

/** Sign-in outcomes are audit events (src/audit/sign-in.ts), about the client the person signs in for. */
function attemptOf(request: FastifyRequest, resumed: ResumedTransaction): SignInAttempt {
  return { realm: request.realm.name, address: request.ip, via: 'sign_in_page', clientId: resumed.client?.client_id };
}
