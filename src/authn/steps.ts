import type { FastifyRequest } from 'fastify';
import type { SafeHtml } from '../pages/html.js';
import type { RequestRealm } from '../realms/resolve.js';
import type { AuthenticationStep } from '../realms/settings.js';

/** How far a person has come through the realm's `authentication` steps. */
export interface SignInProgress {
  /** Known once a step has identified the person (password, or a passkey without one). */
  readonly userId?: string;
  /** The RFC 8176 methods that passed, in order. */
  readonly amr: readonly string[];
  /** Steps passed, or skipped by the risk step. */
  readonly done: readonly AuthenticationStep[];
}

export const NO_PROGRESS: SignInProgress = Object.freeze({ amr: [], done: [] });

/** A step that passed: who, and by which methods (RFC 8176). */
export interface StepPassed {
  readonly userId: string;
  readonly amr: readonly string[];
  /**
   * Every step is done: a passkey verified with user verification is two factors by itself
   * (the device, and the PIN or biometric that unlocks it), so it stands for the whole sign-in.
   */
  readonly completesSignIn?: boolean;
}

export type StepOutcome =
  | { readonly passed: StepPassed }
  /** Shown on the step's page again; `failure` counts towards brute-force limits. */
  | { readonly error: string; readonly failure: boolean }
  /** The step moved on within itself (an enrolment confirmed a first code…): show it again. */
  | { readonly again: true };

/** What a step sees of the sign-in it takes part in. */
export interface StepContext {
  readonly request: FastifyRequest;
  readonly realm: RequestRealm;
  /** The transaction's secret id; a step that keeps state of its own (a WebAuthn challenge) keys it by this. */
  readonly transactionId: string;
  readonly progress: SignInProgress;
  /** The form fields every step's form must carry back (transaction, CSRF token, step). */
  readonly hidden: Readonly<Record<string, string>>;
}

/** A step's part of the sign-in page. */
export interface StepPage {
  readonly body: SafeHtml;
  /** Same-origin scripts the page needs (passkeys); pages without them work without JavaScript. */
  readonly scripts?: readonly string[];
}

/**
 * One kind of step of the realm's `authentication` list, as the sign-in page runs it. The
 * page (src/endpoints/login.ts) renders the current step, hands its form back to it, and
 * moves on when it passes; brute-force limits, the risk step and the session are its own.
 */
export interface SignInStep {
  readonly name: Exclude<AuthenticationStep, 'risk'>;
  /** The fields this step's form posts, beside the hidden ones. */
  readonly fields: readonly string[];
  /**
   * For a step that tells who signs in: the account a form is about (the typed username),
   * for brute-force counting before the person is known.
   */
  account?(form: Readonly<Record<string, string | undefined>>): string | undefined;
  /** The page of the step. `shown` carries what the person typed and what went wrong. */
  render(context: StepContext, shown: { error?: string; username?: string }): Promise<StepPage>;
  /**
   * Another way through the current step, offered on its page when it is `step`: a passkey
   * instead of the password. Its form posts this step's name.
   */
  alternativeTo?(step: AuthenticationStep, context: StepContext): Promise<StepPage | undefined>;
  submit(context: StepContext, form: Readonly<Record<string, string | undefined>>): Promise<StepOutcome>;
}

/** The next step of `steps` not yet done; undefined when the sign-in is complete. */
export function nextStep(steps: readonly AuthenticationStep[], progress: SignInProgress): AuthenticationStep | undefined {
  return steps.find((step) => !progress.done.includes(step));
}

/** Records a passed step (or every step, for a sign-in that completes at once). */
export function advance(steps: readonly AuthenticationStep[], progress: SignInProgress, step: AuthenticationStep, passed: StepPassed): SignInProgress {
  return {
    userId: passed.userId,
    amr: [...new Set([...progress.amr, ...passed.amr])],
    done: passed.completesSignIn ? [...steps] : [...progress.done, step],
  };
}

/** The risk step found nothing new: the steps after it are skipped. */
export function skipRest(steps: readonly AuthenticationStep[], progress: SignInProgress): SignInProgress {
  return { ...progress, done: [...steps] };
}

/** Factors by RFC 8176 method: something known, something held. */
const KNOWLEDGE = new Set(['pwd', 'pin', 'kba']);
const POSSESSION = new Set(['otp', 'hwk', 'swk', 'sms']);

/**
 * The `amr` of a complete sign-in: its methods, and `mfa` when they span more than one
 * factor, or when a method is multi-factor by itself (RFC 8176 §2).
 */
export function finalAmr(amr: readonly string[]): string[] {
  const knows = amr.some((method) => KNOWLEDGE.has(method));
  const holds = amr.some((method) => POSSESSION.has(method));
  return knows && holds && !amr.includes('mfa') ? [...amr, 'mfa'] : [...amr];
}

/**
 * OIDC Core §2 `acr`: "2" for a multi-factor sign-in, "1" for a single factor (the levels
 * Keycloak calls LoA 1 and 2). Discovery lists both.
 */
export const ACR_VALUES = ['1', '2'] as const;
export function acrOf(amr: readonly string[]): (typeof ACR_VALUES)[number] {
  return amr.includes('mfa') ? '2' : '1';
}
