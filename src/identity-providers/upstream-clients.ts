import { LRUCache } from 'lru-cache';
import * as oidc from 'openid-client';
import type { OutboundFetcher } from '../http/outbound-fetch.js';
import type { IdentityProvider } from '../store/identity-providers.js';
import type { KeyEncryption } from '../tokens/key-encryption.js';
import { upstreamFetch } from './fetch.js';
import { UpstreamFailure } from './failures.js';
import { displayNameOf } from '../records/identity-provider.js';
import { openClientSecret } from './secret.js';

/** How long a provider's discovery document (and the key set fetched with it) is used before it is read again. */
const DISCOVERY_TTL_MS = 10 * 60_000;

/**
 * The realm's client at each upstream provider: openid-client's Configuration, made from the
 * provider's discovery document (OpenID Connect Discovery §4) and kept for a while per
 * instance, with the key set it fetches. Every request goes through the outbound fetcher. The
 * broker authenticates with `client_secret_basic`, and ID tokens are verified by the
 * upstream's keys (`enableNonRepudiationChecks`: the signature too, not only the TLS channel).
 */
/** A discovery in progress, and its configuration once it has one. */
interface Discovered {
  readonly configuration: Promise<oidc.Configuration>;
  settled?: oidc.Configuration;
}

export class UpstreamClients {
  private readonly configurations = new LRUCache<string, Discovered>({ max: 1_000, ttl: DISCOVERY_TTL_MS });
  private readonly fetch: oidc.CustomFetch;

  constructor(
    outbound: OutboundFetcher,
    private readonly encryption: KeyEncryption,
  ) {
    this.fetch = upstreamFetch(outbound);
  }

  /** The provider's configuration, discovered once per record and instance (for a while). */
  configurationOf(provider: IdentityProvider): Promise<oidc.Configuration> {
    const key = keyOf(provider);
    const known = this.configurations.get(key);
    if (known) return known.configuration;
    const discovered: Discovered = { configuration: this.discover(provider) };
    this.configurations.set(key, discovered);
    discovered.configuration.then(
      (configuration) => {
        discovered.settled = configuration;
      },
      // A failed discovery is not kept: the next sign-in tries again.
      () => {
        if (this.configurations.get(key) === discovered) this.configurations.delete(key);
      },
    );
    return discovered.configuration;
  }

  /** The authorization endpoint of a provider discovered already (never waiting for one), for the sign-in page's form targets. */
  knownAuthorizationEndpoint(provider: IdentityProvider): string | undefined {
    return this.configurations.get(keyOf(provider))?.settled?.serverMetadata().authorization_endpoint;
  }

  private discover(provider: IdentityProvider): Promise<oidc.Configuration> {
    const secret = openClientSecret(this.encryption, provider.realm, provider.alias, provider.sealedSecret);
    // A provider that a realm's import brought has no secret until an admin sets one (docs/realms-as-data.md).
    if (secret === '') {
      return Promise.reject(new UpstreamFailure('unreachable', displayNameOf(provider.alias, provider), { cause: new Error('the provider has no client secret yet') }));
    }
    const insecure = new URL(provider.issuer).protocol === 'http:';
    return oidc.discovery(new URL(provider.issuer), provider.client_id, { client_secret: secret }, oidc.ClientSecretBasic(secret), {
      [oidc.customFetch]: this.fetch,
      // http only where the record allows it: a loopback issuer (src/records/identity-provider.ts).
      execute: [oidc.enableNonRepudiationChecks, ...(insecure ? [oidc.allowInsecureRequests] : [])],
    });
  }
}

/** A change of the provider's record (`updatedAt`) is a configuration of its own. */
const keyOf = (provider: IdentityProvider) => `${provider.realm}/${provider.alias}/${provider.updatedAt.getTime()}`;
