import { type Journey, type JourneyNode, nodeNamed } from '../../records/journey.js';

/**
 * The node the realm's `email_verification` setting adds to every journey. Its name is none a
 * journey can give a node of its own (validate.ts allows letters, digits, ".", "_" and "-").
 */
export const EMAIL_GATE = '#email_verification';

/**
 * A journey of a realm with `email_verification` on (CONTRACT.md §9): every way into `done`
 * goes through an `email_verification` node first. It passes by itself for a person whose
 * address is confirmed, or who has none (walk.ts); anyone else stops at its page, which says to
 * check the mail, until they open its link. Adding a node, rather than checking at `done`,
 * keeps one engine for both: the sign-in page shows the node as any other, and the password
 * grant refuses a person it stops.
 */
export function withEmailGate(journey: Journey): Journey {
  const through = (target: string): string => (nodeNamed(journey, target)?.type === 'done' ? EMAIL_GATE : target);
  const nodes: Record<string, JourneyNode> = {};
  for (const [name, node] of Object.entries(journey.nodes)) nodes[name] = rerouted(node, through);
  nodes[EMAIL_GATE] = { type: 'email_verification', next: { success: 'done' } };
  return { start: journey.start, nodes };
}

function rerouted(node: JourneyNode, through: (target: string) => string): JourneyNode {
  if (node.type === 'choice') return { ...node, options: node.options.map((option) => ({ ...option, next: through(option.next) })) };
  if (!('next' in node)) return node;
  const next = Object.fromEntries(Object.entries(node.next as Record<string, string>).map(([outcome, target]) => [outcome, through(target)]));
  return { ...node, next } as JourneyNode;
}
