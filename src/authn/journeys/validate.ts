import { ALIAS } from '../../records/identity-provider.js';
import {
  type ConditionTest,
  DECIDED_NODE_TYPES,
  END_NODE_TYPES,
  type Journey,
  type JourneyNode,
  OUTCOMES,
  PERSON_NODE_TYPES,
  edgesOf,
  isEnd,
  alwaysWaits,
  identifies,
  needsPerson,
  nodeNamed,
} from '../../records/journey.js';

/** A journey an admin sent is not one realmgate can run; the message names the node (CONTRACT.md §8). */
export class InvalidJourney extends Error {
  override name = 'InvalidJourney';
}

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const MAX_NODES = 100;
const MAX_OPTIONS = 10;
const MAX_LABEL = 100;
const KNOWN_TYPES: readonly string[] = [...PERSON_NODE_TYPES, ...DECIDED_NODE_TYPES, ...END_NODE_TYPES];
const CONDITIONS: readonly string[] = ['has_passkey', 'has_otp', 'email_verified'];

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const fail = (node: string, message: string): never => {
  throw new InvalidJourney(`node "${node}": ${message}`);
};

/** A journey name: what the admin API's path and a client's `journey` accept. */
export const isJourneyName = (name: string): boolean => NAME.test(name);

/**
 * Checks a journey as sent (untrusted JSON) and returns it typed. Refused: an unknown node
 * type, an outcome left unconnected or leading nowhere, a graph that cannot reach `done`, a
 * loop that no step of the person's breaks, and a node that needs to know the person (a
 * one-time code, the risk check, `done` itself) where no node before it has told who they are.
 */
export function validateJourney(input: unknown): Journey {
  if (!isObject(input)) throw new InvalidJourney('a journey is an object with "start" and "nodes"');
  const extra = Object.keys(input).find((key) => key !== 'start' && key !== 'nodes');
  if (extra !== undefined) throw new InvalidJourney(`unknown field "${extra}"`);
  const { start, nodes } = input;
  if (!isObject(nodes)) throw new InvalidJourney('"nodes" must be an object of nodes by name');
  const names = Object.keys(nodes);
  if (names.length === 0 || names.length > MAX_NODES) throw new InvalidJourney(`a journey has 1 to ${MAX_NODES} nodes`);
  const journey: Journey = { start: String(start), nodes: Object.fromEntries(names.map((name) => [name, nodeOf(name, nodes[name])])) };

  if (typeof start !== 'string' || !Object.hasOwn(nodes, start)) throw new InvalidJourney('"start" must name one of the nodes');
  for (const [name, node] of Object.entries(journey.nodes)) {
    for (const [outcome, target] of edgesOf(node)) {
      if (!nodeNamed(journey, target)) fail(name, `outcome "${outcome}" leads to "${target}", which is no node`);
    }
    if (node.type === 'password' && node.passkey !== undefined && journey.nodes[node.passkey]?.type !== 'passkey') {
      fail(name, `"passkey" names "${node.passkey}", which is no passkey node`);
    }
  }
  checkReachesDone(journey);
  checkLoops(journey);
  checkPersonKnown(journey);
  return journey;
}

function nodeOf(name: string, input: unknown): JourneyNode {
  if (!NAME.test(name)) fail(name, 'a node name has 1 to 64 letters, digits, ".", "_" or "-"');
  if (!isObject(input)) return fail(name, 'a node is an object with a "type"');
  const type = input.type;
  if (typeof type !== 'string' || !KNOWN_TYPES.includes(type)) return fail(name, `unknown type "${String(type)}"`);
  const allowed = new Set(['type', ...fieldsOf(type)]);
  const extra = Object.keys(input).find((key) => !allowed.has(key));
  if (extra !== undefined) fail(name, `unknown field "${extra}" for type "${type}"`);

  if (type === 'done' || type === 'deny') return { type };
  if (type === 'choice') return { type, options: optionsOf(name, input.options) };
  const next = nextOf(name, input.next, OUTCOMES[type as keyof typeof OUTCOMES]);
  if (type === 'condition') return { type, if: conditionOf(name, input.if), next: next as { true: string; false: string } };
  if (type === 'passkey') {
    if (input.enrol !== undefined && typeof input.enrol !== 'boolean') fail(name, '"enrol" must be true or false');
    return { type, next: next as { success: string; unavailable: string }, ...(input.enrol === true ? { enrol: true } : {}) };
  }
  if (type === 'risk') return { type, next: next as { low: string; high: string } };
  if (type === 'identity_provider') {
    // Whether the realm has the provider is known at sign-in (a page says so), not here.
    if (typeof input.provider !== 'string' || !ALIAS.test(input.provider)) fail(name, '"provider" must be the alias of an identity provider');
    return { type, provider: input.provider as string, next: next as { success: string } };
  }
  if (type === 'password' && input.passkey !== undefined) {
    if (typeof input.passkey !== 'string') fail(name, '"passkey" must name a passkey node');
    return { type, next: next as { success: string }, passkey: input.passkey as string };
  }
  return { type: type as 'password' | 'otp' | 'register' | 'email_verification', next: next as { success: string } };
}

function fieldsOf(type: string): string[] {
  if (type === 'choice') return ['options'];
  if (type === 'condition') return ['if', 'next'];
  if (type === 'passkey') return ['next', 'enrol'];
  if (type === 'password') return ['next', 'passkey'];
  if (type === 'identity_provider') return ['provider', 'next'];
  return type === 'done' || type === 'deny' ? [] : ['next'];
}

function nextOf(name: string, input: unknown, outcomes: readonly string[]): Record<string, string> {
  if (!isObject(input)) return fail(name, `"next" must connect ${outcomes.map((o) => `"${o}"`).join(' and ')}`);
  const unknown = Object.keys(input).find((outcome) => !outcomes.includes(outcome));
  if (unknown !== undefined) fail(name, `has no outcome "${unknown}"`);
  for (const outcome of outcomes) {
    if (typeof input[outcome] !== 'string') fail(name, `outcome "${outcome}" is not connected`);
  }
  return input as Record<string, string>;
}

function optionsOf(name: string, input: unknown): Array<{ label: string; next: string }> {
  if (!Array.isArray(input) || input.length === 0 || input.length > MAX_OPTIONS) {
    return fail(name, `"options" must list 1 to ${MAX_OPTIONS} options`);
  }
  return input.map((option, index) => {
    if (!isObject(option) || typeof option.label !== 'string' || option.label.trim() === '' || option.label.length > MAX_LABEL) {
      return fail(name, `option ${index + 1} needs a "label" of 1 to ${MAX_LABEL} characters`);
    }
    if (typeof option.next !== 'string') return fail(name, `option ${index + 1} is not connected`);
    return { label: option.label, next: option.next };
  });
}

function conditionOf(name: string, input: unknown): ConditionTest {
  if (typeof input === 'string' && CONDITIONS.includes(input)) return input as ConditionTest;
  if (isObject(input) && Object.keys(input).length === 1 && Array.isArray(input.client_in)) {
    const ids = input.client_in;
    if (ids.length > 0 && ids.length <= 100 && ids.every((id) => typeof id === 'string' && id !== '')) return { client_in: ids as string[] };
  }
  return fail(name, `"if" must be one of ${CONDITIONS.join(', ')} or {"client_in": [client ids]}`);
}

/** Names of the nodes reachable from `from` (ends included) following `through`'s nodes only. */
function reachable(journey: Journey, from: string, through: (node: JourneyNode) => boolean = () => true): Set<string> {
  const seen = new Set<string>([from]);
  const queue = [from];
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
    const node = nodeNamed(journey, name)!;
    if (name !== from && !through(node)) continue;
    for (const [, target] of edgesOf(node)) {
      if (!seen.has(target)) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  return seen;
}

/** `done` is reachable from the start, and every node on the way reaches an end. */
function checkReachesDone(journey: Journey): void {
  const fromStart = reachable(journey, journey.start);
  if (![...fromStart].some((name) => nodeNamed(journey, name)!.type === 'done')) fail(journey.start, 'no way leads from it to "done"');
  for (const name of fromStart) {
    const node = nodeNamed(journey, name)!;
    if (isEnd(node)) continue;
    if (![...reachable(journey, name)].some((other) => isEnd(nodeNamed(journey, other)!))) fail(name, 'no way leads from it to an end');
  }
}

/** A loop of nodes that may pass by themselves would never wait for the person: refused. */
function checkLoops(journey: Journey): void {
  for (const [name, node] of Object.entries(journey.nodes)) {
    if (alwaysWaits(node) || isEnd(node)) continue;
    const decidedOnly = (other: JourneyNode) => !alwaysWaits(other) && !isEnd(other);
    for (const [, target] of edgesOf(node)) {
      if (!decidedOnly(nodeNamed(journey, target)!)) continue;
      if (target === name || reachable(journey, target, decidedOnly).has(name)) {
        fail(name, 'is in a loop without a step of the person');
      }
    }
  }
}

/**
 * Every node that needs the person known comes after a node that identified them, on every
 * way: a password's, a registration's or an identity provider's outcome, or a passkey's
 * `success` (its `unavailable` tells no one).
 */
function checkPersonKnown(journey: Journey): void {
  const seen = new Set<string>([journey.start]);
  const queue = [journey.start];
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
    const node = nodeNamed(journey, name)!;
    if (needsPerson(node)) {
      fail(name, `${name === 'done' ? 'a way reaches "done"' : 'it can be reached'} before a password or passkey node has told who signs in`);
    }
    for (const [outcome, target] of edgesOf(node)) {
      if (!identifies(node, outcome) && !seen.has(target)) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
}
