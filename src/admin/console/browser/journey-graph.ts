/**
 * The admin console's journey-graph module: a journey as the editor holds it (the JSON the
 * admin API takes, CONTRACT.md §8), and what the editor asks of it: the node types and their
 * outcomes, the nodes in walk order, where each outcome leads, the outcomes left unset, and the
 * changes the editor makes (a node added, retyped or removed). No DOM here.
 */
import { t } from './i18n.js';
import type { Journey, JourneyNode } from './records.js';

/** A node with every field the server's schema has (records.ts names those the lists show). */
export interface EditedNode extends JourneyNode {
  /** A password node's passkey node, offered beside the password form. */
  passkey?: string;
  /** An identity_provider node's provider alias. */
  provider?: string;
}

export interface EditedJourney extends Journey {
  nodes: Record<string, EditedNode>;
}

/** The node types the server accepts (src/records/journey.ts), in the order the type select offers them. */
export const NODE_TYPES = ['password', 'otp', 'passkey', 'choice', 'identity_provider', 'register', 'email_verification', 'risk', 'condition', 'done', 'deny'] as const;
export type NodeType = (typeof NODE_TYPES)[number];

/** The outcomes each type connects; a choice connects its options instead, the ends nothing. */
export const OUTCOMES: Readonly<Record<NodeType, readonly string[]>> = {
  password: ['success'],
  otp: ['success'],
  passkey: ['success', 'unavailable'],
  choice: [],
  identity_provider: ['success'],
  register: ['success'],
  email_verification: ['success'],
  risk: ['low', 'high'],
  condition: ['true', 'false'],
  done: [],
  deny: [],
};

/** The two ends, which a journey may name without declaring them. */
export const ENDS = ['done', 'deny'] as const;

/** What a condition node may ask; `client_in` takes a list of client ids. */
export const CONDITIONS = ['has_passkey', 'has_otp', 'email_verified', 'client_in'] as const;

/** The rule of node names (src/authn/journeys/validate.ts). */
export const NODE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

export const isNodeType = (type: unknown): type is NodeType => (NODE_TYPES as readonly unknown[]).includes(type);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Where each outcome of a node leads: [outcome, target]; a choice's outcomes are its options, by label. */
export function edgesOf(node: EditedNode): [outcome: string, target: string][] {
  if (node.type === 'choice') return (node.options ?? []).map((option): [string, string] => [option.label, option.next]);
  return Object.entries(node.next ?? {});
}

/** The outcomes a node's type connects, each with where it leads ('' when unset); none for a choice. */
export const outcomesOf = (node: EditedNode): [outcome: string, target: string][] =>
  (isNodeType(node.type) ? OUTCOMES[node.type] : []).map((outcome) => [outcome, node.next?.[outcome] ?? '']);

/** The nodes in the order a person meets them: the start, then each next one; any unreachable last. */
export function inWalkOrder(journey: Journey): string[] {
  const names = Object.keys(journey.nodes);
  const order: string[] = [];
  const queue = [journey.start];
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
    if (order.includes(name) || !Object.hasOwn(journey.nodes, name)) continue;
    order.push(name);
    queue.push(...edgesOf(journey.nodes[name]!).map(([, target]) => target));
  }
  return [...order, ...names.filter((name) => !order.includes(name))];
}

/** Whether a name is somewhere an outcome (or the start) may lead: a node of the journey, or an end. */
export const leadsSomewhere = (journey: Journey, target: string): boolean =>
  target !== '' && (Object.hasOwn(journey.nodes, target) || (ENDS as readonly string[]).includes(target));

/** A node of that type, its outcomes unset (''), its fields at their defaults. */
export function blankNode(type: NodeType): EditedNode {
  if (type === 'choice') return { type, options: [{ label: '', next: '' }] };
  if (type === 'condition') return { type, if: 'has_otp', next: { true: '', false: '' } };
  if (type === 'identity_provider') return { type, provider: '', next: { success: '' } };
  const outcomes = OUTCOMES[type];
  return outcomes.length === 0 ? { type } : { type, next: Object.fromEntries(outcomes.map((outcome) => [outcome, ''])) };
}

/** The node as another type: the outcomes both types have keep their targets, the rest start unset. */
export function retyped(node: EditedNode, type: NodeType): EditedNode {
  const fresh = blankNode(type);
  if (fresh.next) for (const outcome of Object.keys(fresh.next)) fresh.next[outcome] = node.next?.[outcome] ?? '';
  if (fresh.options && node.options?.length) fresh.options = node.options.map((option) => ({ ...option }));
  if (type === 'condition' && node.if !== undefined) fresh.if = node.if;
  if (type === 'identity_provider' && node.provider !== undefined) fresh.provider = node.provider;
  return fresh;
}

/** The journey with a node added; the first node is where it starts. */
export function withNode(journey: EditedJourney, name: string, type: NodeType): EditedJourney {
  return { start: Object.keys(journey.nodes).length === 0 ? name : journey.start, nodes: { ...journey.nodes, [name]: blankNode(type) } };
}

/**
 * The journey without the node: every outcome that led to it is unset, as is the start if it
 * was the node, and a password node that offered it as its passkey no longer does.
 */
export function withoutNode(journey: EditedJourney, removed: string): EditedJourney {
  const unset = (target: string) => (target === removed ? '' : target);
  const nodes: Record<string, EditedNode> = {};
  for (const [name, node] of Object.entries(journey.nodes)) {
    if (name === removed) continue;
    const { passkey, ...rest } = node;
    const kept: EditedNode = passkey === undefined || passkey === removed ? rest : { ...rest, passkey };
    if (kept.next) kept.next = Object.fromEntries(Object.entries(kept.next).map(([outcome, target]) => [outcome, unset(target)]));
    if (kept.options) kept.options = kept.options.map((option) => ({ ...option, next: unset(option.next) }));
    nodes[name] = kept;
  }
  return { start: unset(journey.start), nodes };
}

/** The journey with a node renamed, in its place, and every outcome, the start and any password's passkey that named it following. */
export function withNodeRenamed(journey: EditedJourney, from: string, to: string): EditedJourney {
  const follow = (target: string) => (target === from ? to : target);
  const nodes: Record<string, EditedNode> = {};
  for (const [name, node] of Object.entries(journey.nodes)) {
    const kept: EditedNode = { ...node };
    if (kept.next) kept.next = Object.fromEntries(Object.entries(kept.next).map(([outcome, target]) => [outcome, follow(target)]));
    if (kept.options) kept.options = kept.options.map((option) => ({ ...option, next: follow(option.next) }));
    if (kept.passkey !== undefined) kept.passkey = follow(kept.passkey);
    nodes[name === from ? to : name] = kept;
  }
  return { start: follow(journey.start), nodes };
}

/** Why a name cannot be a new node's: empty, against the rule, an end's, or taken; undefined when it can. */
export function newNameProblem(journey: Journey, name: string): string | undefined {
  if (!NODE_NAME.test(name)) return t('A node name has 1 to 64 letters, digits, ".", "_" or "-".');
  if ((ENDS as readonly string[]).includes(name)) return t('"{name}" is an end of every journey: choose another name.', { name });
  if (Object.hasOwn(journey.nodes, name)) return t('The journey already has a node "{name}".', { name });
  return undefined;
}

/**
 * What keeps the journey from being sent: no node, no start, or an outcome that leads nowhere;
 * the first such, worded for the operator, with the node it concerns. The server judges the rest.
 */
export function firstGap(journey: Journey): { node?: string; message: string } | undefined {
  if (Object.keys(journey.nodes).length === 0) return { message: t('Add a node before saving.') };
  if (!Object.hasOwn(journey.nodes, journey.start)) return { message: t('Choose the node the journey starts at before saving.') };
  for (const name of inWalkOrder(journey)) {
    const node = journey.nodes[name]!;
    if (node.type === 'choice') {
      const index = (node.options ?? []).findIndex((option) => !leadsSomewhere(journey, option.next));
      if (index >= 0) return { node: name, message: t('Node "{node}": choose where option {number} leads before saving.', { node: name, number: index + 1 }) };
      continue;
    }
    const open = outcomesOf(node).find(([, target]) => !leadsSomewhere(journey, target));
    if (open) return { node: name, message: t('Node "{node}": choose where "{outcome}" leads before saving.', { node: name, outcome: open[0] }) };
  }
  return undefined;
}

/**
 * The journey a JSON text describes, when the editor can draw it: an object with a "start"
 * and "nodes", each node an object of a known type whose "next", "options" and "if" have the
 * shapes the fields show. Anything else is the reason, in words. The server judges the graph.
 */
export function readJourney(text: string): EditedJourney {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(t('The journey is not valid JSON: {reason}', { reason: (error as Error).message }));
  }
  if (!isObject(value) || typeof value.start !== 'string' || !isObject(value.nodes)) throw new Error(t('The journey must be a JSON object with "start" (a node\'s name) and "nodes" (an object).'));
  for (const [name, node] of Object.entries(value.nodes)) {
    if (!isObject(node)) throw new Error(t('Node "{node}" must be a JSON object with a "type".', { node: name }));
    if (!isNodeType(node.type)) throw new Error(t('Node "{node}": "{type}" is not a node type the server knows.', { node: name, type: String(node.type) }));
    const next = node.next;
    if (next !== undefined && !(isObject(next) && Object.values(next).every((target) => typeof target === 'string'))) {
      throw new Error(t('Node "{node}": "next" must be an object of outcomes and the names they lead to.', { node: name }));
    }
    const options = node.options;
    if (options !== undefined && !(Array.isArray(options) && options.every((option) => isObject(option) && typeof option.label === 'string' && typeof option.next === 'string'))) {
      throw new Error(t('Node "{node}": "options" must be a list of objects with a "label" and a "next".', { node: name }));
    }
    const test = node.if;
    if (test !== undefined && typeof test !== 'string' && !(isObject(test) && Array.isArray(test.client_in) && test.client_in.every((id) => typeof id === 'string'))) {
      throw new Error(t('Node "{node}": "if" must be a condition\'s name or {"client_in": [client ids]}.', { node: name }));
    }
  }
  return value as unknown as EditedJourney;
}
