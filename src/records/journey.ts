/**
 * Authentication journeys (CONTRACT.md §8): a named graph of nodes a person walks to sign
 * in. This module holds the shapes only; `validate.ts` checks a graph an admin sends, and
 * `walk.ts` moves a sign-in through one.
 */

/**
 * Nodes a person acts on: each needs a page (or, at the password grant, a parameter). An
 * `email_verification` node passes by itself once the address is confirmed (walk.ts).
 */
export const PERSON_NODE_TYPES = ['password', 'otp', 'passkey', 'choice', 'identity_provider', 'register', 'email_verification'] as const;
/** Nodes decided without the person, from what is known of them. */
export const DECIDED_NODE_TYPES = ['risk', 'condition'] as const;
/** The two ends of every journey. */
export const END_NODE_TYPES = ['done', 'deny'] as const;
export type PersonNodeType = (typeof PERSON_NODE_TYPES)[number];
export type EndNodeType = (typeof END_NODE_TYPES)[number];
export type NodeType = PersonNodeType | (typeof DECIDED_NODE_TYPES)[number] | EndNodeType;

/** What a `condition` node asks about the person (or the client they sign in for). */
export type ConditionTest = 'has_passkey' | 'has_otp' | 'email_verified' | { readonly client_in: readonly string[] };

export type JourneyNode =
  /**
   * `passkey` (password nodes only): a passkey node whose passwordless ceremony the page offers
   * beside the password form; passing it follows that node's `success`.
   */
  | { readonly type: 'password'; readonly next: { readonly success: string }; readonly passkey?: string }
  | { readonly type: 'otp'; readonly next: { readonly success: string } }
  /**
   * `enrol`: a person without a passkey registers one here instead of taking `unavailable`
   * (the realm's `authentication` list asks for that, as it did before journeys).
   */
  | { readonly type: 'passkey'; readonly next: { readonly success: string; readonly unavailable: string }; readonly enrol?: boolean }
  | { readonly type: 'choice'; readonly options: readonly { readonly label: string; readonly next: string }[] }
  /** Sign-in at the realm's upstream provider of this alias (CONTRACT.md §10): it tells who signs in, as a password does. */
  | { readonly type: 'identity_provider'; readonly provider: string; readonly next: { readonly success: string } }
  /** A new person registers (CONTRACT.md §9): it tells who signs in, as a password does. */
  | { readonly type: 'register'; readonly next: { readonly success: string } }
  /** The person confirms their email address by the link of a mail (CONTRACT.md §9). */
  | { readonly type: 'email_verification'; readonly next: { readonly success: string } }
  | { readonly type: 'risk'; readonly next: { readonly low: string; readonly high: string } }
  | { readonly type: 'condition'; readonly if: ConditionTest; readonly next: { readonly true: string; readonly false: string } }
  | { readonly type: EndNodeType };

export interface Journey {
  readonly start: string;
  readonly nodes: Readonly<Record<string, JourneyNode>>;
}

/** The journey every realm has: its `authentication` list, until an admin stores one of this name. */
export const DEFAULT_JOURNEY = 'default';

/** The outcomes each node type must connect (a `choice` connects its options instead). */
export const OUTCOMES: Readonly<Record<Exclude<NodeType, 'choice' | EndNodeType>, readonly string[]>> = {
  password: ['success'],
  otp: ['success'],
  passkey: ['success', 'unavailable'],
  identity_provider: ['success'],
  register: ['success'],
  email_verification: ['success'],
  risk: ['low', 'high'],
  condition: ['true', 'false'],
};

/** Where each outcome of a node leads, as [outcome, target] pairs (`option 1`… for a choice). */
export function edgesOf(node: JourneyNode): Array<[outcome: string, target: string]> {
  if (node.type === 'choice') return node.options.map((option, index) => [`option ${index + 1}`, option.next]);
  if (!('next' in node)) return [];
  return Object.entries(node.next as Record<string, string>);
}

/**
 * The node a name stands for: a node of the journey, or one of the ends `done` and `deny`,
 * which a journey may name without declaring them.
 */
export function nodeNamed(journey: Journey, name: string): JourneyNode | undefined {
  const node = Object.hasOwn(journey.nodes, name) ? journey.nodes[name] : undefined;
  if (node) return node;
  return name === 'done' || name === 'deny' ? { type: name } : undefined;
}

export const isPersonNode = (node: JourneyNode): boolean => (PERSON_NODE_TYPES as readonly string[]).includes(node.type);
/** Nodes that always wait for the person; an `email_verification` node of a confirmed address does not. */
export const alwaysWaits = (node: JourneyNode): boolean => isPersonNode(node) && node.type !== 'email_verification';
/** Nodes whose passing tells who signs in. */
export const identifies = (node: JourneyNode, outcome: string): boolean =>
  node.type === 'password' || node.type === 'identity_provider' || node.type === 'register' || (node.type === 'passkey' && outcome === 'success');
export const isEnd = (node: JourneyNode): node is { type: EndNodeType } => node.type === 'done' || node.type === 'deny';
/** Nodes that can only run for a known person. */
export function needsPerson(node: JourneyNode): boolean {
  if (node.type === 'otp' || node.type === 'risk' || node.type === 'email_verification' || node.type === 'done') return true;
  return node.type === 'condition' && typeof node.if === 'string';
}

/**
 * How far a sign-in has come through its journey: kept with the sign-in (the transaction of
 * the pages, or one token request) so that any instance takes the next step.
 */
export interface JourneyProgress {
  /** The journey's name; a sign-in whose journey changed under it starts again. */
  readonly journey: string;
  /** Where the person stands: a node of theirs, or an end. */
  readonly node: string;
  /** Known once a node has told who signs in. */
  readonly userId?: string;
  /** The RFC 8176 methods that passed, in order. */
  readonly amr: readonly string[];
  /** The fingerprint of the password a step checked (src/authn/password-verification.ts passwordFingerprint). */
  readonly passwordOf?: string;
  /**
   * The nodes of the person's passed (`passedNodeOf`), the session's included when this sign-in
   * completes one (a step-up): a node passed already passes by itself (`settle`).
   */
  readonly nodes?: readonly string[];
  /** The sid of the session this sign-in completes (src/authn/session-fit.ts); none for a sign-in from the start. */
  readonly stepUpOf?: string;
  /**
   * A node that tells who signs in has passed on this walk. A step-up knows its person from the
   * start; until then it stands where a sign-in from the start would know no one yet.
   */
  readonly identified?: boolean;
}
