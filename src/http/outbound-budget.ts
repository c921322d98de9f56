import { AsyncLocalStorage } from 'node:async_hooks';

/** What the request being handled spends before an outbound fetch it causes is made; it throws to refuse it. */
export type OutboundSpend = () => Promise<void>;

const spendOfRequest = new AsyncLocalStorage<OutboundSpend>();

/**
 * Runs the handling of a request (`next`) with what its outbound fetches spend (CONTRACT.md §7:
 * fetches that a request causes are counted under its rate limit before they are made).
 * OutboundFetcher.fetch, the one way out, spends it: a request refused there fetches nothing.
 */
export function withOutboundSpend(spend: OutboundSpend, next: () => void): void {
  spendOfRequest.run(spend, next);
}

/** Spends the budget of the request that causes this fetch; nothing outside a request (a cleanup, a test). */
export function spendOutboundBudget(): Promise<void> {
  return spendOfRequest.getStore()?.() ?? Promise.resolve();
}
