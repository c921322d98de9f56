import type { JourneyNode } from '../records/journey.js';
import type { OutboundFetcher } from '../http/outbound-fetch.js';
import type { Store } from '../store/index.js';
import type { IdentityProvider } from '../store/identity-providers.js';
import type { KeyEncryption } from '../tokens/key-encryption.js';
import { UpstreamFailure } from './failures.js';
import { displayNameOf } from '../records/identity-provider.js';
import { UpstreamClients } from './upstream-clients.js';
import { type AccountLink, UpstreamFlow, type UpstreamPurpose } from './upstream-flow.js';

/** A provider the sign-in page offers, as its button shows it. */
export interface ProviderButton {
  readonly alias: string;
  readonly name: string;
}

/**
 * Which providers a node's page offers (CONTRACT.md §8, §10): an `identity_provider` node its
 * own; a password node, while no one is known yet, every provider of the realm beside its form.
 */
export function providersOfferedAt(node: JourneyNode, userKnown: boolean): 'all' | string | undefined {
  if (node.type === 'identity_provider') return node.provider;
  return node.type === 'password' && !userKnown ? 'all' : undefined;
}

export interface BrokerDeps {
  store: Pick<Store, 'identityProviders' | 'brokerStates'>;
  encryption: KeyEncryption;
  outbound: OutboundFetcher;
}

/**
 * Sign-in through the realm's upstream OpenID providers, as the sign-in page and the broker's
 * callback (src/web/login.ts, src/web/broker.ts) use it: what a page offers, and
 * the upstream code flow (./upstream-flow.ts).
 */
export class Broker {
  readonly flow: UpstreamFlow;
  private readonly clients: UpstreamClients;

  constructor(private readonly deps: BrokerDeps) {
    this.clients = new UpstreamClients(deps.outbound, deps.encryption);
    this.flow = new UpstreamFlow(deps.store.brokerStates, this.clients, deps.encryption);
  }

  /** The realm's providers that `offer` names, in the order they were added. */
  async offered(realm: string, offer: 'all' | string | undefined): Promise<IdentityProvider[]> {
    if (offer === undefined) return [];
    const providers = await this.deps.store.identityProviders.list(realm);
    return offer === 'all' ? [...providers] : providers.filter((provider) => provider.alias === offer);
  }

  buttonOf(provider: IdentityProvider): ProviderButton {
    return { alias: provider.alias, name: displayNameOf(provider.alias, provider) };
  }

  /**
   * Where a page's provider buttons lead after its form is posted (its CSP's form-action):
   * each provider's issuer, and its authorization endpoint once this instance has discovered it.
   */
  formTargets(providers: readonly IdentityProvider[]): string[] {
    const endpoints = providers.map((provider) => this.clients.knownAuthorizationEndpoint(provider));
    return [...providers.map((provider) => provider.issuer), ...endpoints.filter((endpoint) => endpoint !== undefined)];
  }

  /** Begins the upstream flow with a provider the page offers; `unknown_provider` for any other. */
  async begin(
    realm: { name: string; issuer: string },
    offer: 'all' | string | undefined,
    alias: string,
    at: UpstreamPurpose,
  ): Promise<string> {
    const provider = (await this.offered(realm.name, offer)).find((offered) => offered.alias === alias);
    if (!provider) throw new UpstreamFailure('unknown_provider', alias);
    return this.flow.begin(realm, provider, at);
  }

  /** Begins the upstream flow that links an account at one of the realm's providers to the signed-in person (the account page). */
  async beginLink(realm: { name: string; issuer: string }, alias: string, link: AccountLink['link']): Promise<string> {
    return this.begin(realm, 'all', alias, { link });
  }
}
