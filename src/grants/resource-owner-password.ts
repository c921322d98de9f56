import { randomUUID } from 'node:crypto';
import type { AuditLog } from '../audit/audit-log.js';
import { BruteForceGuard } from '../authn/brute-force.js';
import type { JourneyNode } from '../records/journey.js';
import { selectJourney } from '../authn/journeys/select.js';
import { endOf, finishesWithoutPages } from '../authn/journeys/walk.js';
import { nodesWithoutPages } from '../authn/nodes/index.js';
import type { PasswordHashing } from '../authn/password-hashing.js';
import type { Form } from '../authn/nodes/node.js';
import { hasConfirmedTotp } from '../authn/otp.js';
import { RiskAssessor } from '../authn/risk.js';
import { SignInCore, type SignInRequest, type SignInWalk, type StepResult } from '../authn/sign-in.js';
import { OAuthError } from '../errors.js';
import type { RequestRealm } from '../records/realm.js';
import { requestedScope } from '../records/scope.js';
import type { Client } from '../store/clients.js';
import type { Store } from '../store/index.js';
import type { KeyEncryption } from '../tokens/key-encryption.js';
import { type TokenIssuer, issuesRefreshTokens } from '../tokens/issuer.js';
import type { GrantHandler, GrantRequest } from './grant-handler.js';
import { issue } from './issue.js';

type Param = 'username' | 'password' | 'otp' | 'scope';

export interface PasswordGrantDeps {
  store: Pick<Store, 'users' | 'tokens' | 'oneTimeCodes' | 'passkeys' | 'attemptCounters' | 'signInSources' | 'tickets' | 'mailAllowances'>;
  /** Opens one-time code secrets. */
  encryption: KeyEncryption;
  issuer: TokenIssuer;
  /** Sign-ins succeeded and failed (src/audit/sign-in.ts). */
  audit: AuditLog;
  /** argon2id's cost of the server's passwords (src/authn/password-hashing.ts). */
  passwordHashing: PasswordHashing;
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
 * realm's `default`) runs through the same sign-in core as the sign-in page (src/authn/sign-in.ts),
 * with the nodes that need no page, the same brute-force limits per account and per address and
 * the same failure audit; this grant only turns parameters into forms and results into RFC 6749
 * §5.2 errors. The `risk` node judges the address
 * alone (there is no device), and nodes that need a page (a passkey, a choice) refuse the
 * request. The ID token's `amr` and `acr` describe the journey walked.
 */
export function passwordGrant(deps: PasswordGrantDeps): GrantHandler<Param> {
  const { store } = deps;
  const bruteForce = new BruteForceGuard(store.attemptCounters);
  const risk = new RiskAssessor(store.signInSources, bruteForce);
  const core = new SignInCore({ store, nodes: nodesWithoutPages(deps), bruteForce, risk, audit: deps.audit });

  /**
   * Walks the journey for one token request: the person signed in, or an `invalid_grant` that
   * says what is missing or wrong.
   */
  async function signIn(request: SignInRequest, client: Client, params: { username: string; password: string; otp: string | undefined }) {
    const { realm } = request;
    const selected = selectJourney(realm, { clientJourney: client.journey });
    if (!selected) throw new OAuthError('invalid_grant', 'the sign-in journey of this client does not exist');
    const { journey } = selected;
    if (!finishesWithoutPages(journey)) {
      const types = new Set(Object.values(journey.nodes).map((node) => node.type));
      if (types.has('choice')) throw new OAuthError('invalid_grant', PAGE_REQUIRED);
      if (types.has('passkey')) throw new OAuthError('invalid_grant', PASSKEY_REQUIRED);
      throw new OAuthError('invalid_grant', 'this realm does not sign people in with a password');
    }
    let walk = await core.begin(request, selected);
    for (let end = endOf(journey, walk.progress); end === undefined; end = endOf(journey, walk.progress)) {
      const node = core.nodeOf(walk);
      const step = await core.submit(request, walk, formOf(node, walk, params));
      if (step.kind !== 'moved') throw await refusalOf(deps, realm, node, walk, step);
      walk = step.walk;
    }
    const person = walk.person;
    if (core.end(request, walk) !== 'done' || !person) throw new OAuthError('invalid_grant', 'the sign-in was refused');
    const signedIn = core.signedIn(walk);
    await core.completedWithoutSession(request, signedIn);
    return { person, signedIn };
  }

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
      const { person, signedIn } = await signIn(signInRequestOf(request, username), client, { username, password, otp: params.otp });

      return issue(deps.store.tokens, deps.issuer.userTokens({
        realm,
        client,
        grantType: 'password',
        user: person,
        scope,
        signIn: { authTime: new Date(), amr: signedIn.amr, acr: signedIn.acr, sid: randomUUID(), passwordOf: signedIn.passwordOf },
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

/** One token request as the sign-in core knows it: no pages, no device, its own transaction. */
function signInRequestOf(request: GrantRequest<Param>, username: string): SignInRequest {
  return {
    realm: request.realm,
    address: request.address,
    via: 'password_grant',
    clientId: request.client.client_id,
    transactionId: randomUUID(),
    locale: 'en',
    log: { info: () => {} },
    device: () => undefined,
    username,
  };
}

/**
 * What the grant's parameters post to the node the walk stands at: a password node gets the
 * username and password, an `otp` node the `otp` parameter. A node that needs a page refuses the
 * request before anything is checked.
 */
function formOf(node: JourneyNode, walk: SignInWalk, params: { username: string; password: string; otp: string | undefined }): Form {
  if (node.type === 'password') return { step: walk.progress.node, username: params.username, password: params.password };
  if (node.type === 'otp' && walk.person) {
    if (params.otp === undefined) throw new OAuthError('invalid_grant', OTP_REQUIRED);
    return { step: walk.progress.node, otp: params.otp };
  }
  if (node.type === 'email_verification') throw new OAuthError('invalid_grant', EMAIL_UNCONFIRMED);
  throw new OAuthError('invalid_grant', node.type === 'passkey' ? PASSKEY_REQUIRED : PAGE_REQUIRED);
}

/** The RFC 6749 §5.2 error of a step the sign-in core did not let through. */
async function refusalOf(deps: Pick<PasswordGrantDeps, 'store'>, realm: RequestRealm, node: JourneyNode, walk: SignInWalk, step: StepResult): Promise<OAuthError> {
  if (step.kind === 'locked') {
    const minutes = Math.ceil(step.wait / 60);
    return new OAuthError(
      'invalid_grant',
      `sign-in is temporarily locked after too many failed attempts; try again in ${minutes} minute${minutes === 1 ? '' : 's'}`,
      { headers: { 'retry-after': String(step.wait) } },
    );
  }
  if (step.kind === 'disabled') return new OAuthError('invalid_grant', ACCOUNT_DISABLED_GRANT);
  // The nodes without pages answer only these; any other would need a page.
  if (step.kind !== 'refused') return new OAuthError('invalid_grant', PAGE_REQUIRED);
  if (node.type !== 'otp' || !walk.person) return new OAuthError('invalid_grant', WRONG_CREDENTIALS);
  if (!(await hasConfirmedTotp(deps.store, realm.name, walk.person.id))) {
    return new OAuthError('invalid_grant', `this realm requires a one-time code and none is set up for this account: set one up at ${realm.issuer}/account`);
  }
  return new OAuthError('invalid_grant', WRONG_CODE);
}
