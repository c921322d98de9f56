import { randomUUID } from 'node:crypto';
import type { AuditLog } from '../audit/audit-log.js';
import { type SignInAttempt, recordSignInFailed, recordSignInSucceeded } from '../audit/sign-in.js';
import { BruteForceGuard } from '../authn/brute-force.js';
import { OTP_AMR, RECOVERY_CODE_AMR, hasConfirmedTotp, verifyOneTimeCode } from '../authn/otp.js';
import { PASSWORD_AMR, verifyPassword } from '../authn/password.js';
import { RiskAssessor } from '../authn/risk.js';
import { NO_PROGRESS, advance, finalAmr, nextStep, skipRest } from '../authn/steps.js';
import { OAuthError } from '../errors.js';
import { requestedScope } from '../oauth/scope.js';
import type { RequestRealm } from '../realms/resolve.js';
import type { AuthenticationStep } from '../realms/settings.js';
import type { Store } from '../store/index.js';
import type { User } from '../store/users.js';
import type { KeyEncryption } from '../tokens/key-encryption.js';
import { type TokenIssuer, issuesRefreshTokens } from '../tokens/issuer.js';
import type { GrantHandler } from './grant-handler.js';

type Param = 'username' | 'password' | 'otp' | 'scope';

export interface PasswordGrantDeps {
  store: Store;
  /** Opens one-time code secrets. */
  encryption: KeyEncryption;
  issuer: TokenIssuer;
  /** Sign-ins succeeded and failed (src/audit/sign-in.ts). */
  audit: AuditLog;
}

const WRONG_CREDENTIALS = 'the username or password is incorrect';
const WRONG_CODE = 'the one-time code is incorrect or was already used';
const PASSKEY_REQUIRED = 'this realm requires a passkey, which cannot be used with the password grant';
const OTP_REQUIRED = 'this realm requires a one-time code: send it in the otp parameter';

/**
 * RFC 6749 §4.3: the client sends the person's username and password, and an `otp`
 * parameter where the realm's `authentication` steps ask for a one-time code. The steps run
 * in order as the sign-in page runs them, with the same brute-force limits per account and
 * per address; the `risk` step judges the address alone (there is no device), and a
 * `passkey` step cannot be passed here. The ID token's `amr` and `acr` describe the steps
 * that passed.
 */
export function passwordGrant(deps: PasswordGrantDeps): GrantHandler<Param> {
  const steps = stepRunner(deps);
  return {
    type: 'password',
    parameters: ['username', 'password', 'otp', 'scope'],
    async handle(request) {
      const { realm, client, params } = request;
      const { username, password } = params;
      if (username === undefined || password === undefined) throw new OAuthError('invalid_request', 'username and password are required');

      // The scope is checked first, so that a refused request says nothing about the password.
      const scope = requestedScope(params.scope, client.scope);

      const signedIn = await steps({ realm, username, password, otp: params.otp, address: request.address, clientId: client.client_id });

      return deps.issuer.issueUserTokens({
        realm,
        client,
        grantType: 'password',
        user: signedIn.user,
        scope,
        signIn: { authTime: new Date(), amr: signedIn.amr, sid: randomUUID() },
        refreshScope: issuesRefreshTokens(realm, client) ? scope : undefined,
        audience: request.audience,
        certificateThumbprint: request.certificateThumbprint,
        address: request.address,
      });
    },
  };
}

interface Attempt {
  realm: RequestRealm;
  username: string;
  password: string;
  otp: string | undefined;
  address: string;
  clientId: string;
}

/**
 * Runs the realm's steps for one token request: the person signed in with the final `amr`,
 * or an `invalid_grant` that says what is missing or wrong.
 */
function stepRunner(deps: PasswordGrantDeps): (attempt: Attempt) => Promise<{ user: User; amr: string[] }> {
  const { store, encryption } = deps;
  const bruteForce = new BruteForceGuard(store.attemptCounters);
  const risk = new RiskAssessor(store.signInSources, bruteForce);

  return async (attempt) => {
    const { realm, username, address } = attempt;
    const authentication = realm.settings.authentication;
    refuseUnreachable(authentication);

    /**
     * Runs one check of `step` for `account` within the brute-force limits (CONTRACT.md §7): it
     * is counted before it runs, and while the account or the address is locked nothing is
     * checked, so that the right password is refused as a wrong one would be. Undefined: the
     * check failed, and the failure is counted and delayed.
     */
    const checked = async <T>(step: string, account: string, check: () => Promise<T | undefined>): Promise<T | undefined> => {
      const reservation = await bruteForce.reserve(realm, account, address);
      if ('lockedFor' in reservation) {
        const wait = reservation.lockedFor;
        recordSignInFailed(deps.audit, attemptOf(attempt), { step, username: account, reason: 'locked' });
        const minutes = Math.ceil(wait / 60);
        throw new OAuthError(
          'invalid_grant',
          `sign-in is temporarily locked after too many failed attempts; try again in ${minutes} minute${minutes === 1 ? '' : 's'}`,
          { headers: { 'retry-after': String(wait) } },
        );
      }
      // A check that throws keeps its place: only an answer gives it back.
      const result = await check();
      if (result !== undefined) {
        await bruteForce.passed(reservation);
        return result;
      }
      recordSignInFailed(deps.audit, attemptOf(attempt), { step, username: account, reason: 'wrong_credentials' });
      await bruteForce.failed(reservation);
      return undefined;
    };

    const user = await checked('password', username, () => verifyPassword(store.users, realm.name, username, attempt.password));
    if (!user) throw new OAuthError('invalid_grant', WRONG_CREDENTIALS);
    let progress = advance(authentication, NO_PROGRESS, 'password', { userId: user.id, amr: PASSWORD_AMR });
    for (let step = nextStep(authentication, progress); step !== undefined; step = nextStep(authentication, progress)) {
      switch (step) {
        case 'risk': {
          // No device here: the address alone is judged.
          const needed = await risk.needsMoreSteps(realm, { userId: user.id, username: user.username }, { device: undefined, address });
          progress = needed ? { ...progress, done: [...progress.done, 'risk'] } : skipRest(authentication, progress);
          break;
        }
        case 'otp': {
          const code = attempt.otp;
          if (code === undefined) throw new OAuthError('invalid_grant', OTP_REQUIRED);
          // The password's account and budget: a second factor is the same account (src/authn/brute-force.ts).
          const kind = await checked('otp', user.username, () => verifyOneTimeCode(store, encryption, realm.name, user.id, code));
          if (kind === undefined) {
            if (!(await hasConfirmedTotp(store, realm.name, user.id))) {
              const setUp = `set one up at ${realm.issuer}/account`;
              throw new OAuthError('invalid_grant', `this realm requires a one-time code and none is set up for this account: ${setUp}`);
            }
            throw new OAuthError('invalid_grant', WRONG_CODE);
          }
          progress = advance(authentication, progress, 'otp', { userId: user.id, amr: kind === 'recovery' ? RECOVERY_CODE_AMR : OTP_AMR });
          break;
        }
        case 'passkey':
          throw new OAuthError('invalid_grant', PASSKEY_REQUIRED);
        default:
          throw new Error(`the ${step} step cannot come after the password`);
      }
    }
    await risk.remember(realm, user.id, { device: undefined, address });
    const amr = finalAmr(progress.amr);
    recordSignInSucceeded(deps.audit, attemptOf(attempt), { userId: user.id, amr });
    return { user, amr };
  };
}

/**
 * Refuses, before any credential is checked, a realm whose steps this grant cannot complete:
 * one that asks for a passkey whatever the risk step would say (every step before a `risk`
 * step is always asked for). Realm settings begin with a password or a passkey, so what
 * remains begins with the password.
 */
function refuseUnreachable(authentication: readonly AuthenticationStep[]): void {
  const riskAt = authentication.indexOf('risk');
  const always = riskAt === -1 ? authentication : authentication.slice(0, riskAt);
  if (always.includes('passkey')) throw new OAuthError('invalid_grant', PASSKEY_REQUIRED);
  if (authentication[0] !== 'password') throw new OAuthError('invalid_grant', 'this realm does not sign people in with a password');
}

const attemptOf = (attempt: Attempt): SignInAttempt => ({
  realm: attempt.realm.name,
  address: attempt.address,
  via: 'password_grant',
  clientId: attempt.clientId,
});
