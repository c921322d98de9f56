import type { AuditLog } from '../audit/audit-log.js';
import { type SignInAttempt, recordSignInFailed, recordSignInSucceeded } from '../audit/sign-in.js';
import type { Text } from '../records/text.js';
import type { Locale } from '../records/locales.js';
import type { SignInView } from './nodes/views.js';
import type { RequestRealm } from '../records/realm.js';
import type { Store } from '../store/index.js';
import type { User } from '../store/users.js';
import type { BruteForceGuard } from './brute-force.js';
import { journeyFacts } from './journey-facts.js';
import { finalAmr } from './journeys/amr.js';
import type { JourneyNode } from '../records/journey.js';
import type { SelectedJourney } from './journeys/select.js';
import type { JourneyProgress } from '../records/journey.js';
import { PersonChanged, beginJourney, currentNode, endOf, follow, settle } from './journeys/walk.js';
import type { SignInNodes } from './nodes/index.js';
import type { Form, NodeContext, NodeRunner, Shown } from './nodes/node.js';
import { PASSWORD_AMR } from './password-verification.js';
import type { RiskAssessor } from './risk.js';

/**
 * One request of a sign-in, as its driver knows it: a form posted to the sign-in page, or one
 * token request of the password grant. No HTTP: the driver hands over what the core needs.
 */
export interface SignInRequest {
  readonly realm: RequestRealm;
  readonly address: string;
  readonly via: SignInAttempt['via'];
  /** The client the person signs in for, if any. */
  readonly clientId: string | undefined;
  /** The sign-in's secret id; a node that keeps state of its own (a WebAuthn challenge) keys it by this. */
  readonly transactionId: string;
  readonly locale: Locale;
  readonly log: NodeContext['log'];
  /** The device cookie, asked for only when a `risk` node runs (a driver without pages has none). */
  device(): string | undefined;
  /** The username typed, where the driver has one beside the form (the password grant): its `deny` is recorded with it. */
  readonly username?: string | undefined;
}

/** Where a sign-in stands: its journey, the progress through it, and the person as a node read them on this walk. */
export interface SignInWalk {
  readonly selected: SelectedJourney;
  readonly progress: JourneyProgress;
  /** The record a node read of the person on this walk; a walk resumed from a stored progress has none. */
  readonly person?: User | undefined;
}

/** What a step of the person's came to. */
export type StepResult =
  /** The walk moved on (its decided nodes taken): it may have ended. */
  | { readonly kind: 'moved'; readonly walk: SignInWalk }
  /** The form was not for the node the person stands at: show that node. */
  | { readonly kind: 'unchanged' }
  /** An upstream provider was chosen at `at`: the driver sends the person there (none named: show the node). */
  | { readonly kind: 'upstream'; readonly at: JourneyProgress; readonly alias: string | undefined }
  /** Too many failed checks: nothing was checked; the account or address opens again in `wait` seconds. */
  | { readonly kind: 'locked'; readonly wait: number }
  /** Show the node again with this error; `counted` when the check failed and counts towards the limits. */
  | { readonly kind: 'refused'; readonly error: Text; readonly counted: boolean }
  /** The node moved on within itself: show it afresh. */
  | { readonly kind: 'again' }
  /** Show the node again with what was done. */
  | { readonly kind: 'notice'; readonly notice: Text }
  /** The credential passed, but an admin disabled the person (CONTRACT.md §10): the sign-in ends. */
  | { readonly kind: 'disabled' }
  /** A node this server cannot run. */
  | { readonly kind: 'unavailable' };

/** What a session records of a sign-in that reached `done` (src/store/sessions.ts). */
export interface SignedIn {
  readonly userId: string;
  /** The RFC 8176 methods that passed, as the ID token carries them. */
  readonly amr: readonly string[];
  readonly acr: string;
  readonly journey: string;
  /** The fingerprint of the password a step checked, if one did: the session begins only while it is the person's. */
  readonly passwordOf: string | undefined;
  /** The nodes of the person's passed (src/authn/journeys/walk.ts passedNodeOf), the completed session's included. */
  readonly nodes: readonly string[];
  /** The sid of the session a step-up completes: the new session replaces it, keeping its sign-in time and end. */
  readonly stepUpOf: string | undefined;
}

export interface SignInCoreDeps {
  store: Pick<Store, 'users' | 'passkeys' | 'oneTimeCodes'>;
  /** The nodes of the person's this driver runs: all of them for pages, fewer for a driver without pages. */
  nodes: Partial<SignInNodes>;
  bruteForce: BruteForceGuard;
  risk: RiskAssessor;
  /** Sign-ins failed and succeeded (src/audit/sign-in.ts). */
  audit: AuditLog;
}

/**
 * The one sign-in core (CONTRACT.md §7, §8, §10): it walks a journey (src/authn/journeys/),
 * runs the node the person stands at, counts each check of a credential within the
 * brute-force limits before it runs, records each failure, ends the sign-in of a disabled
 * person once their credential passed, and says what a session records. Its drivers (the
 * sign-in page, the password grant) turn HTTP into `SignInRequest`s and its results into
 * answers; neither checks a credential itself.
 */
export class SignInCore {
  constructor(private readonly deps: SignInCoreDeps) {}

  /** A walk from the journey's start, its decided nodes taken. */
  begin(request: SignInRequest, selected: SelectedJourney): Promise<SignInWalk> {
    return this.resume(request, selected, beginJourney(selected.name, selected.journey));
  }

  /** A stored progress with the decided nodes taken (a risk step, a condition…), until the journey waits for the person or ends. */
  async resume(request: SignInRequest, selected: SelectedJourney, progress: JourneyProgress, person?: User): Promise<SignInWalk> {
    return { selected, progress: await settle(selected.journey, progress, this.factsOf(request)), person };
  }

  /** The node the person stands at. */
  nodeOf(walk: SignInWalk): JourneyNode {
    return currentNode(walk.selected.journey, walk.progress);
  }

  /**
   * `done` or `deny` once the journey ended, else undefined; a `deny` is recorded as a failed
   * sign-in. Call once per walk that ends.
   */
  end(request: SignInRequest, walk: SignInWalk): 'done' | 'deny' | undefined {
    const end = endOf(walk.selected.journey, walk.progress);
    if (end === 'deny') this.failed(request, { step: walk.progress.node, username: request.username, userId: walk.progress.userId, reason: 'denied' });
    return end;
  }

  /**
   * A person who registered during the sign-in (src/authn/self-service/person-registration.ts)
   * goes on as themselves when the walk waits for someone to say who they are (a password or a
   * `register` node): that node passes with `pwd`. Undefined when the walk cannot go on so.
   */
  registered(walk: SignInWalk, userId: string): JourneyProgress | undefined {
    const node = this.nodeOf(walk);
    if (walk.progress.userId !== undefined || (node.type !== 'password' && node.type !== 'register')) return undefined;
    return follow(walk.selected.journey, walk.progress, 'success', { userId, amr: PASSWORD_AMR });
  }

  /** The view model of the node the person stands at (undefined: no node of this server's); an upstream provider's is the driver's. */
  async view(request: SignInRequest, walk: SignInWalk, shown: Shown): Promise<SignInView | undefined> {
    const node = this.nodeOf(walk);
    if (node.type === 'choice') return { kind: 'choice', labels: node.options.map((option) => option.label) };
    return this.runnerOf(node)?.view(this.contextOf(request, walk.progress), node, shown);
  }

  /**
   * The passkey node whose passwordless ceremony is offered beside a password form (the
   * password node's `passkey`), while no one is known yet, with the options of its ceremony.
   */
  async passkeyAlternative(request: SignInRequest, walk: SignInWalk): Promise<{ node: string; options: unknown } | undefined> {
    const node = alternativePasskeyNode(this.nodeOf(walk), walk.progress);
    const passkey = this.deps.nodes.passkey;
    if (node === undefined || !passkey) return undefined;
    return { node, options: await passkey.passwordlessOptions(this.contextOf(request, walk.progress)) };
  }

  /**
   * A form posted at `form.step`: the node the person stands at, or the passkey offered beside
   * it. The check is counted before it runs (CONTRACT.md §7): past the limit nothing is checked.
   */
  async submit(request: SignInRequest, walk: SignInWalk, form: Form): Promise<StepResult> {
    const { journey } = walk.selected;
    const { progress } = walk;
    const current = this.nodeOf(walk);
    // The form of the node the person stands at, or of the passkey offered beside it; any other shows the current node.
    const postedAt = form.step === progress.node ? progress : form.step === alternativePasskeyNode(current, progress) ? { ...progress, node: form.step! } : undefined;
    if (!postedAt) return { kind: 'unchanged' };
    const node = currentNode(journey, postedAt);
    if (form.provider !== undefined || node.type === 'identity_provider') return { kind: 'upstream', at: postedAt, alias: form.provider };
    if (node.type === 'choice') {
      const option = Number(form.option);
      if (!Number.isInteger(option) || option < 0 || option >= node.options.length) return { kind: 'unchanged' };
      return { kind: 'moved', walk: await this.resume(request, walk.selected, follow(journey, postedAt, String(option)), walk.person) };
    }
    const runner = this.runnerOf(node);
    if (!runner) return { kind: 'unavailable' };

    const { bruteForce } = this.deps;
    const account = walk.person?.username ?? (progress.userId ? await this.deps.store.users.usernameOf(request.realm.name, progress.userId) : runner.account?.(form));
    const failure = { step: node.type, username: account, userId: progress.userId };
    const check = await bruteForce.reserve(request.realm, account, request.address);
    if ('lockedFor' in check) {
      this.failed(request, { ...failure, reason: 'locked' });
      return { kind: 'locked', wait: check.lockedFor };
    }
    // A check that throws keeps its place: only an answer gives it back.
    const outcome = await runner.submit(this.contextOf(request, progress), node, form);
    if ('error' in outcome && outcome.failure) {
      this.failed(request, { ...failure, reason: 'wrong_credentials' });
      await bruteForce.failed(check);
      return { kind: 'refused', error: outcome.error, counted: true };
    }
    await bruteForce.passed(check);
    if ('again' in outcome) return { kind: 'again' };
    if ('error' in outcome) return { kind: 'refused', error: outcome.error, counted: false };
    if ('notice' in outcome) return { kind: 'notice', notice: outcome.notice };
    // A node that names a disabled person (a password, a passkey) ends the sign-in (CONTRACT.md §10); said only once their credential passed.
    // A person disabled after this check is refused when the session is written (AuthorizationFlow).
    if ('passed' in outcome && outcome.disabled) {
      this.failed(request, { ...failure, userId: outcome.passed.userId, reason: 'disabled' });
      return { kind: 'disabled' };
    }
    let moved: JourneyProgress;
    try {
      moved = 'passed' in outcome ? follow(journey, postedAt, 'success', outcome.passed) : follow(journey, postedAt, outcome.outcome);
    } catch (error) {
      // Another person's credential where the sign-in knows who signs in (a step-up of their session): not theirs.
      if (!(error instanceof PersonChanged)) throw error;
      this.failed(request, { ...failure, reason: 'wrong_credentials' });
      return { kind: 'refused', error: (t) => t.signIn.wrongCredentials, counted: false };
    }
    const person = 'passed' in outcome && outcome.person ? outcome.person : walk.person;
    return { kind: 'moved', walk: await this.resume(request, walk.selected, moved, person) };
  }

  /** What the session of a walk that reached `done` records. */
  signedIn(walk: SignInWalk): SignedIn {
    const { progress, selected } = walk;
    return {
      userId: progress.userId!,
      amr: finalAmr(progress.amr),
      acr: selected.acr,
      journey: selected.name,
      passwordOf: progress.passwordOf,
      nodes: progress.nodes ?? [],
      stepUpOf: progress.stepUpOf,
    };
  }

  /**
   * A sign-in without a session (the password grant) completed: its source becomes known to the
   * risk step, and it is recorded. The sign-in page writes both with its session instead
   * (src/web/authorization-flow.ts signedIn).
   */
  async completedWithoutSession(request: SignInRequest, signedIn: SignedIn): Promise<void> {
    await this.deps.risk.remember(request.realm, signedIn.userId, { device: request.device(), address: request.address });
    recordSignInSucceeded(this.deps.audit, attemptOf(request), signedIn);
  }

  private failed(request: SignInRequest, failure: Parameters<typeof recordSignInFailed>[2]): void {
    recordSignInFailed(this.deps.audit, attemptOf(request), failure);
  }

  private runnerOf(node: JourneyNode): NodeRunner | undefined {
    const { nodes } = this.deps;
    return Object.hasOwn(nodes, node.type) ? nodes[node.type as keyof SignInNodes] : undefined;
  }

  private factsOf(request: SignInRequest) {
    const source = () => ({ device: request.device(), address: request.address });
    return journeyFacts({ store: this.deps.store, risk: this.deps.risk }, request.realm, { source, clientId: request.clientId });
  }

  private contextOf(request: SignInRequest, progress: JourneyProgress): NodeContext {
    return {
      realm: request.realm,
      transactionId: request.transactionId,
      userId: progress.userId,
      address: request.address,
      locale: request.locale,
      audit: this.deps.audit,
      log: request.log,
    };
  }
}

/** Sign-in outcomes are audit events (src/audit/sign-in.ts), about the client the person signs in for. */
export const attemptOf = (request: SignInRequest): SignInAttempt => ({ realm: request.realm.name, address: request.address, via: request.via, clientId: request.clientId });

/**
 * The passkey node whose passwordless ceremony is offered beside a password form (the
 * password node's `passkey`), while no one is known yet. Passing it follows that node's `success`.
 */
function alternativePasskeyNode(current: JourneyNode, progress: JourneyProgress): string | undefined {
  return current.type === 'password' && progress.userId === undefined ? current.passkey : undefined;
}
