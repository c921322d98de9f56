import { randomUUID } from 'node:crypto';
import type { AuditLog } from '../audit/audit-log.js';
import { type SignInAttempt, recordSignInFailed, recordSignInSucceeded } from '../audit/sign-in.js';
import { BruteForceGuard } from '../authn/brute-force.js';
import { journeyFacts } from '../authn/journey-facts.js';
import { finalAmr } from '../authn/journeys/amr.js';
import { selectJourney } from '../authn/journeys/select.js';
import { type JourneyProgress, beginJourney, currentNode, endOf, finishesWithoutPages, follow, settle } from '../authn/journeys/walk.js';
import { OTP_AMR, RECOVERY_CODE_AMR, hasConfirmedTotp, verifyOneTimeCode } from '../authn/otp.js';
import { PASSWORD_AMR, passwordFingerprint, verifyPassword } from '../authn/password.js';
import { RiskAssessor } from '../authn/risk.js';
import { OAuthError } from '../errors.js';
import type { RequestRealm } from '../realms/resolve.js';
import { requestedScope } from '../requests/scope.js';
import type { Client } from '../store/clients.js';
import type { Store } from '../store/index.js';
import type { User } from '../store/users.js';
import type { KeyEncryption } from '../tokens/key-encryption.js';
import { type TokenIssuer, issuesRefreshTokens } from '../tokens/issuer.js';
import type { GrantHandler } from './grant-handler.js';
import { issue } from './issue.js';

type Param = 'username' | 'password' | 'otp' | 'scope';

export interface PasswordGrantDeps {
  store: Pick<Store, 'users' | 'tokens' | 'oneTimeCodes' | 'passkeys' | 'attemptCounters' | 'signInSources'>;
  /** Opens one-time code secrets. */
  encryption: KeyEncryption;
  issuer: TokenIssuer;
  /** Sign-ins succeeded and failed (src/audit/sign-in.ts). */
  audit: AuditLog;
}

const WRONG_CREDENTIALS = 'the username or password is incorrect';
const WRONG_CODE = 'the one-time code is incorrect or was already used';
const PASSKEY_REQUIRED = 'this realm requires a passkey, which cannot be used with the password grant';
const PAGE_REQUIRED = 'this sign-in asks the person to choose on the sign-in page, which the password grant cannot show';
const OTP_REQUIRED = 'this realm requires a one-time code: send it in the otp parameter';
const ACCOUNT_DISABLED_GRANT = 'the account is disabled';
const EMAIL_UNCONFIRMED = 'the person has not confirmed their email address: the sign-in page says how';

/**
 * RFC 6749 §4.3: the client sends the person's username and password, and an `otp`
 * parameter where the journey asks for a one-time code. The client's journey (else the
 * realm's `default`) runs on the same engine as the sign-in page (src/authn/journeys/), with
 * the same brute-force limits per account and per address; the `risk` node judges the address
 * alone (there is no device), and nodes that need a page (a passkey, a choice) refuse the
 * request. The ID token's `amr` and `acr` describe the journey walked.
 */
export function passwordGrant(deps: PasswordGrantDeps): GrantHandler<Param> {
  const walk = journeyRunner(deps);
  return {
    type: 'password',
    parameters: ['username', 'password', 'otp', 'scope'],
    async handle(request) {
      const { realm, client, params } = request;
      const { username, password } = params;
      if (username === undefined || password === undefined) throw new OAuthError('invalid_request', 'username and password are required');

      // The scope is checked first, so that a refused request says nothing about the password.
      const scope = requestedScope(params.scope, client.scope);

      // Before the password is read: should it change meanwhile, the change denies the JWT (src/tokens/jti.ts).
      const credentialsReadAt = new Date();
      const signedIn = await walk({ realm, client, username, password, otp: params.otp, address: request.address });

      return issue(deps.store.tokens, deps.issuer.userTokens({
        realm,
        client,
        grantType: 'password',
        user: signedIn.user,
        scope,
        signIn: { authTime: new Date(), amr: signedIn.amr, acr: signedIn.acr, sid: randomUUID(), passwordOf: passwordFingerprint(signedIn.user.passwordHash!) },
        credentialsReadAt,
        refreshScope: issuesRefreshTokens(realm, client) ? scope : undefined,
        audience: request.audience,
        audienceScopes: request.audienceScopes,
        certificateThumbprint: request.certificateThumbprint,
        keyThumbprint: request.keyThumbprint,
        address: request.address,
      }));
    },
  };
}

interface Attempt {
  realm: RequestRealm;
  client: Client;
  username: string;
  password: string;
  otp: string | undefined;
  address: string;
}

/**
 * Walks the journey for one token request: the person signed in with the final `amr` and the
 * journey's `acr`, or an `invalid_grant` that says what is missing or wrong.
 */
function journeyRunner(deps: PasswordGrantDeps): (attempt: Attempt) => Promise<{ user: User; amr: string[]; acr: string }> {
  const { store, encryption } = deps;
  const bruteForce = new BruteForceGuard(store.attemptCounters);
  const risk = new RiskAssessor(store.signInSources, bruteForce);

  return async (attempt) => {
    const { realm, username, address } = attempt;
    const selected = selectJourney(realm, { clientJourney: attempt.client.journey });
    if (!selected) throw new OAuthError('invalid_grant', 'the sign-in journey of this client does not exist');
    const { journey } = selected;
    if (!finishesWithoutPages(journey)) {
      const types = new Set(Object.values(journey.nodes).map((node) => node.type));
      if (types.has('choice')) throw new OAuthError('invalid_grant', PAGE_REQUIRED);
      if (types.has('passkey')) throw new OAuthError('invalid_grant', PASSKEY_REQUIRED);
      throw new OAuthError('invalid_grant', 'this realm does not sign people in with a password');
    }
    const facts = journeyFacts({ store, risk }, realm, { source: () => ({ device: undefined, address }), clientId: attempt.client.client_id });

    /**
     * Runs one check within the brute-force limits (CONTRACT.md §7): it is counted before it
     * runs, and while the account or the address is locked nothing is checked, so that the
     * right password is refused as a wrong one would be. Undefined: the check failed.
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

    let user: User | undefined;
    let progress: JourneyProgress = await settle(journey, beginJourney(selected.name, journey), facts);
    for (let end = endOf(journey, progress); end === undefined; end = endOf(journey, progress)) {
      const node = currentNode(journey, progress);
      if (node.type === 'password') {
        const verified = await checked('password', username, () => verifyPassword(store.users, realm.name, username, attempt.password));
        if (!verified || (user && verified.id !== user.id)) throw new OAuthError('invalid_grant', WRONG_CREDENTIALS);
        // Said only once the password passed, as the sign-in page does (src/authn/disabled.ts).
        if (!verified.enabled) {
          recordSignInFailed(deps.audit, attemptOf(attempt), { step: 'password', username, userId: verified.id, reason: 'disabled' });
          throw new OAuthError('invalid_grant', ACCOUNT_DISABLED_GRANT);
        }
        user = verified;
        progress = follow(journey, progress, 'success', { userId: user.id, amr: PASSWORD_AMR });
      } else if (node.type === 'otp' && user) {
        const person = user;
        const code = attempt.otp;
        if (code === undefined) throw new OAuthError('invalid_grant', OTP_REQUIRED);
        // The password's account and budget: a second factor is the same account (src/authn/brute-force.ts).
        const kind = await checked('otp', person.username, () => verifyOneTimeCode(store, encryption, realm.name, person.id, code));
        if (kind === undefined) {
          if (!(await hasConfirmedTotp(store, realm.name, person.id))) {
            throw new OAuthError('invalid_grant', `this realm requires a one-time code and none is set up for this account: set one up at ${realm.issuer}/account`);
          }
          throw new OAuthError('invalid_grant', WRONG_CODE);
        }
        progress = follow(journey, progress, 'success', { userId: person.id, amr: kind === 'recovery' ? RECOVERY_CODE_AMR : OTP_AMR });
      } else {
        if (node.type === 'email_verification') throw new OAuthError('invalid_grant', EMAIL_UNCONFIRMED);
        throw new OAuthError('invalid_grant', node.type === 'passkey' ? PASSKEY_REQUIRED : PAGE_REQUIRED);
      }
      progress = await settle(journey, progress, facts);
    }
    if (endOf(journey, progress) === 'deny' || !user) {
      recordSignInFailed(deps.audit, attemptOf(attempt), { step: progress.node, username, reason: 'denied' });
      throw new OAuthError('invalid_grant', 'the sign-in was refused');
    }
    await risk.remember(realm, user.id, { device: undefined, address });
    const amr = finalAmr(progress.amr);
    recordSignInSucceeded(deps.audit, attemptOf(attempt), { userId: user.id, amr });
    return { user, amr, acr: selected.acr };
  };
}

const attemptOf = (attempt: Attempt): SignInAttempt => ({
  realm: attempt.realm.name,
  address: attempt.address,
  via: 'password_grant',
  clientId: attempt.client.client_id,
});
