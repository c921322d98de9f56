import { type Journey, type JourneyNode, type JourneyProgress, identifies, isEnd, nodeNamed } from '../../records/journey.js';

/** What decided nodes ask about the person signing in; the caller knows how to find out. */
export interface JourneyFacts {
  /** `high` when the address or the device has not completed a sign-in of this person before. */
  risk(userId: string): Promise<'low' | 'high'>;
  hasPasskey(userId: string): Promise<boolean>;
  hasOtp(userId: string): Promise<boolean>;
  emailVerified(userId: string): Promise<boolean>;
  /** Whether the person has an email address they have not confirmed (an `email_verification` node waits for it). */
  emailToConfirm(userId: string): Promise<boolean>;
  /** The client the person signs in for, if any. */
  readonly clientId: string | undefined;
}

/** A step of the person's that passed: who they are, and by which methods. */
export interface Passed {
  readonly userId: string;
  readonly amr: readonly string[];
  /** A password step's: the fingerprint of the password it checked. */
  readonly passwordOf?: string;
  /** The node this step counts as when it is not the node's own: an upstream provider chosen beside a password form. */
  readonly as?: string;
}

/** A step named another person than the one the journey already knows. */
export class PersonChanged extends Error {
  override name = 'PersonChanged';
}

/**
 * What a session records of a node of the person's passed along `outcome` (CONTRACT.md §8):
 * `password`, `otp`, `passkey`, `identity_provider:<alias>`, `email_verification`, and `register`
 * (so that a choice offering registration stands for the person who registered). Undefined for a
 * choice and decided nodes, which prove nothing by themselves.
 */
export function passedNodeOf(node: JourneyNode, outcome: string): string | undefined {
  if (outcome !== 'success') return undefined;
  switch (node.type) {
    case 'password':
    case 'otp':
    case 'passkey':
    case 'email_verification':
    case 'register':
      return node.type;
    case 'identity_provider':
      return `identity_provider:${node.provider}`;
    default:
      return undefined;
  }
}

export function beginJourney(name: string, journey: Journey): JourneyProgress {
  return { journey: name, node: journey.start, amr: [] };
}

/** The node the person stands at; an unknown name (a journey replaced under a sign-in) is `deny`. */
export function currentNode(journey: Journey, progress: JourneyProgress): JourneyNode {
  return nodeNamed(journey, progress.node) ?? { type: 'deny' };
}

/** `done` or `deny` once the journey has ended; undefined while it goes on. No one known is never `done`. */
export function endOf(journey: Journey, progress: JourneyProgress): 'done' | 'deny' | undefined {
  const node = currentNode(journey, progress);
  if (!isEnd(node)) return undefined;
  return node.type === 'done' && progress.userId !== undefined ? 'done' : 'deny';
}

/** Moves on along `outcome` of the current node, which the person passed (or chose, or was refused). */
export function follow(journey: Journey, progress: JourneyProgress, outcome: string, passed?: Passed): JourneyProgress {
  const node = currentNode(journey, progress);
  const target = outcomeTarget(node, outcome);
  if (target === undefined) return { ...progress, node: 'deny' };
  // A registration taken by itself (someone known has nothing to register) is not one the person made.
  const key = passed?.as ?? (passed || node.type !== 'register' ? passedNodeOf(node, outcome) : undefined);
  const nodes = key === undefined || progress.nodes?.includes(key) ? progress.nodes : [...(progress.nodes ?? []), key];
  const identified = progress.identified || identifies(node, outcome) ? { identified: true } : {};
  if (!passed) return { ...progress, node: target, ...(nodes ? { nodes } : {}), ...identified };
  if (progress.userId !== undefined && passed.userId !== progress.userId) throw new PersonChanged();
  return {
    ...progress,
    node: target,
    userId: passed.userId,
    amr: [...new Set([...progress.amr, ...passed.amr])],
    ...(nodes ? { nodes } : {}),
    ...identified,
    ...(passed.passwordOf ? { passwordOf: passed.passwordOf } : {}),
  };
}

function outcomeTarget(node: JourneyNode, outcome: string): string | undefined {
  if (node.type === 'choice') return node.options[Number(outcome)]?.next;
  if (!('next' in node)) return undefined;
  const next = node.next as Readonly<Record<string, string>>;
  return Object.hasOwn(next, outcome) ? next[outcome] : undefined;
}

/**
 * Takes the nodes decided without the person (risk, condition, a passkey the known person
 * does not have, an email address confirmed already) and the nodes of the person's passed
 * already (`progress.nodes`: a session's, for a step-up), until the journey waits for a step of
 * the person's or ends. A choice is taken by itself when one of its ways reaches `done` with
 * nothing more to ask; else the person picks. A decided node before the person is known, or a
 * loop of them, ends in `deny` (the validator refuses both).
 */
export async function settle(journey: Journey, start: JourneyProgress, facts: JourneyFacts): Promise<JourneyProgress> {
  return settleWithin(journey, start, facts, { steps: SETTLE_STEPS, choices: new Set() }, false);
}

/** How many nodes one `settle` takes at most, the ways of choices it tries included. */
const SETTLE_STEPS = 1000;

async function settleWithin(
  journey: Journey,
  start: JourneyProgress,
  facts: JourneyFacts,
  budget: { steps: number; choices: Set<string> },
  /** Trying a choice's way: a registration there is for new people, and stands for someone known only if they registered. */
  trying: boolean,
): Promise<JourneyProgress> {
  let progress = start;
  for (let taken = 0; taken <= Object.keys(journey.nodes).length && budget.steps > 0; taken++, budget.steps--) {
    const node = currentNode(journey, progress);
    if (trying && node.type === 'register' && !progress.nodes?.includes('register')) return progress;
    // A session signed in by the passwordless passkey that this password node offers beside its form.
    if (alternativePasskeyPassed(node, progress)) {
      progress = { ...progress, node: node.passkey! };
      continue;
    }
    const decided = await decidedOutcome(node, progress.userId, facts);
    if (decided === null) return { ...progress, node: 'deny' };
    const outcome = decided ?? passedBefore(node, progress);
    if (outcome !== undefined) {
      progress = follow(journey, progress, outcome);
      continue;
    }
    if (node.type !== 'choice' || progress.nodes === undefined || budget.choices.has(progress.node)) return progress;
    budget.choices.add(progress.node);
    for (let option = 0; option < node.options.length; option++) {
      const tried = await settleWithin(journey, follow(journey, progress, String(option)), facts, budget, true);
      if (endOf(journey, tried) === 'done') return tried;
    }
    budget.choices.delete(progress.node);
    return progress;
  }
  return { ...progress, node: 'deny' };
}

/**
 * `success` for a node of the person's that this sign-in (or the session it completes) passed
 * already; and for a password node where no one would be known yet, whose page offers every
 * upstream provider beside its form, by a session that signed in through one.
 */
function passedBefore(node: JourneyNode, progress: JourneyProgress): string | undefined {
  const key = passedNodeOf(node, 'success');
  const nodes = progress.nodes ?? [];
  if (progress.userId === undefined || key === undefined) return undefined;
  if (nodes.includes(key)) return 'success';
  const throughProvider = node.type === 'password' && stepUpBeforeAnyone(progress) && nodes.some((passed) => passed.startsWith('identity_provider:'));
  return throughProvider ? 'success' : undefined;
}

function alternativePasskeyPassed(node: JourneyNode, progress: JourneyProgress): node is JourneyNode & { type: 'password'; passkey: string } {
  if (node.type !== 'password' || node.passkey === undefined || !stepUpBeforeAnyone(progress)) return false;
  const nodes = progress.nodes ?? [];
  return nodes.includes('passkey') && !nodes.includes('password');
}

/** A step-up standing where a sign-in from the start would know no one yet. */
const stepUpBeforeAnyone = (progress: JourneyProgress): boolean => progress.stepUpOf !== undefined && !progress.identified;

/** The outcome a node takes by itself; undefined when it waits for the person, null when it cannot be decided. */
async function decidedOutcome(node: JourneyNode, userId: string | undefined, facts: JourneyFacts): Promise<string | null | undefined> {
  switch (node.type) {
    case 'risk':
      return userId === undefined ? null : facts.risk(userId);
    case 'condition': {
      const test = node.if;
      if (typeof test !== 'string') return String(facts.clientId !== undefined && test.client_in.includes(facts.clientId));
      if (userId === undefined) return null;
      const fact = test === 'has_passkey' ? facts.hasPasskey : test === 'has_otp' ? facts.hasOtp : facts.emailVerified;
      return String(await fact(userId));
    }
    case 'passkey':
      if (userId === undefined || node.enrol) return undefined;
      return (await facts.hasPasskey(userId)) ? undefined : 'unavailable';
    case 'otp':
      return userId === undefined ? null : undefined;
    case 'email_verification':
      if (userId === undefined) return null;
      return (await facts.emailToConfirm(userId)) ? undefined : 'success';
    case 'register':
      // Someone already known has an account: there is nothing to register.
      return userId === undefined ? undefined : 'success';
    default:
      return undefined;
  }
}

/**
 * Whether a sign-in without pages (the password grant) can reach `done`: by passwords,
 * one-time codes and decided nodes, and past a passkey node only by its `unavailable` (a
 * person without a passkey takes it by themselves). A journey that cannot is refused before
 * any credential is checked.
 */
export function finishesWithoutPages(journey: Journey): boolean {
  const seen = new Set<string>();
  const queue = [journey.start];
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
    if (seen.has(name)) continue;
    seen.add(name);
    const node = nodeNamed(journey, name);
    // A choice, an upstream provider and a registration need a page.
    if (!node || node.type === 'choice' || node.type === 'identity_provider' || node.type === 'register') continue;
    if (node.type === 'done') return true;
    if (node.type === 'passkey') {
      if (!node.enrol) queue.push(node.next.unavailable);
      continue;
    }
    if ('next' in node) queue.push(...Object.values(node.next as Record<string, string>));
  }
  return false;
}
