import type { AuthenticationStep } from '../../records/realm-settings.js';
import type { Journey, JourneyNode } from '../../records/journey.js';

/**
 * The `default` journey of a realm that has not stored one (CONTRACT.md §8): its
 * `authentication` list as a chain, each step's node named after it. A `risk` step skips the
 * steps after it when the sign-in looks familiar; a `passkey` step has a person without one
 * register it, and is offered beside the password (a passwordless sign-in), as the list always did.
 */
export function journeyOfSteps(steps: readonly AuthenticationStep[]): Journey {
  const nodes: Record<string, JourneyNode> = {};
  steps.forEach((step, index) => {
    const next = steps[index + 1] ?? 'done';
    if (step === 'risk') nodes[step] = { type: 'risk', next: { low: 'done', high: next } };
    else if (step === 'passkey') nodes[step] = { type: 'passkey', next: { success: next, unavailable: 'deny' }, enrol: true };
    else if (step === 'password' && steps.includes('passkey')) nodes[step] = { type: step, next: { success: next }, passkey: 'passkey' };
    else nodes[step] = { type: step, next: { success: next } };
  });
  return { start: steps[0]!, nodes };
}
