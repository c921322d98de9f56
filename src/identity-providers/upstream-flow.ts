import * as oidc from 'openid-client';
import type { BrokerStateStore } from '../store/broker-states.js';
import type { IdentityProvider } from '../store/identity-providers.js';
import type { KeyEncryption } from '../tokens/key-encryption.js';
import { randomSecret, sha256 } from '../secrets.js';
import { UpstreamFailure, upstreamFailureOf } from './failures.js';
import { displayNameOf } from '../records/identity-provider.js';
import type { UpstreamClients } from './upstream-clients.js';

/** How long a person may take at the upstream provider. */
const STATE_LIFETIME_SECONDS = 10 * 60;

/** Where a realm's provider sends the person back (CONTRACT.md §10). */
export const callbackUrl = (issuer: string, alias: string): string => `${issuer}/broker/${alias}/callback`;

/** A step of a sign-in: the transaction, and the journey node the person chose the provider at. */
export interface SignInStep {
  readonly transactionId: string;
  readonly node: string;
}

/** Linking an upstream account to a signed-in person from the account page: their session, which must end the flow too. */
export interface AccountLink {
  readonly link: { readonly sid: string; readonly userId: string };
}

/** What an upstream sign-in is for. */
export type UpstreamPurpose = SignInStep | AccountLink;

/** What the callback needs of the flow it ends; kept server-side, never in the browser. */
export type PendingUpstream = UpstreamPurpose & {
  readonly codeVerifier: string;
  readonly nonce: string;
  /** The `state` the callback brought. */
  readonly state: string;
};

export const isAccountLink = (purpose: UpstreamPurpose): purpose is AccountLink => 'link' in purpose;

/** The upstream account the person signed in to: its `sub` and the claims of its verified ID token. */
export interface UpstreamAccount {
  readonly subject: string;
  readonly claims: Readonly<Record<string, unknown>>;
}

interface Realm {
  readonly name: string;
  readonly issuer: string;
}

/**
 * The code flow at an upstream provider (OpenID Connect Core §3.1), with PKCE (RFC 7636,
 * S256), `state` and `nonce`. The state is a random secret that travels through the browser;
 * what it stands for (the transaction, the PKCE verifier, the nonce) is stored by its SHA-256,
 * sealed under MASTER_KEY, and taken once by the callback.
 */
export class UpstreamFlow {
  constructor(
    private readonly states: BrokerStateStore,
    private readonly clients: UpstreamClients,
    private readonly encryption: KeyEncryption,
  ) {}

  /** The provider's authorization URL to send the person to, its state stored. */
  async begin(realm: Realm, provider: IdentityProvider, purpose: UpstreamPurpose): Promise<string> {
    const configuration = await this.configurationOf(provider);
    const state = randomSecret();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: callbackUrl(realm.issuer, provider.alias),
      scope: provider.scope,
      state,
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    });
    const stateHash = sha256(state);
    const sealed = { ...purposeOf(purpose), codeVerifier, nonce };
    await this.states.put(stateHash, {
      realm: realm.name,
      provider: provider.alias,
      sealed: this.encryption.encrypt(Buffer.from(JSON.stringify(sealed)), sealContext(realm.name, provider.alias, stateHash)),
      lifetimeSeconds: STATE_LIFETIME_SECONDS,
    });
    return url.href;
  }

  /** The flow a callback's `state` names, which no other callback can take then; unknown, expired or used: `unknown_state`. */
  async take(realm: Realm, provider: IdentityProvider, state: string | undefined): Promise<PendingUpstream> {
    const stateHash = state === undefined || state === '' ? undefined : sha256(state);
    const sealed = stateHash && (await this.states.take(stateHash, realm.name, provider.alias));
    if (!stateHash || !sealed) throw new UpstreamFailure('unknown_state', displayNameOf(provider.alias, provider));
    const opened = this.encryption.decrypt(sealed, sealContext(realm.name, provider.alias, stateHash));
    return { ...(JSON.parse(opened.toString('utf8')) as UpstreamPurpose & { codeVerifier: string; nonce: string }), state: state! };
  }

  /**
   * Checks the callback's authorization response (its `error`, its `state`, its `iss` where the
   * provider sends one: RFC 9207), exchanges the code at the provider's token endpoint with
   * the PKCE verifier, and verifies the ID token: signature by the provider's keys, issuer,
   * audience, lifetime and nonce.
   */
  async finish(realm: Realm, provider: IdentityProvider, pending: PendingUpstream, callbackQuery: string): Promise<UpstreamAccount> {
    const configuration = await this.configurationOf(provider);
    const current = new URL(`${callbackUrl(realm.issuer, provider.alias)}?${callbackQuery}`);
    try {
      const tokens = await oidc.authorizationCodeGrant(configuration, current, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims) throw new UpstreamFailure('invalid_answer', displayNameOf(provider.alias, provider));
      return { subject: claims.sub, claims };
    } catch (error) {
      throw upstreamFailureOf(error, displayNameOf(provider.alias, provider));
    }
  }

  private async configurationOf(provider: IdentityProvider): Promise<oidc.Configuration> {
    try {
      return await this.clients.configurationOf(provider);
    } catch (error) {
      // Whatever went wrong with the discovery document, the provider cannot be used now.
      const failure = upstreamFailureOf(error, displayNameOf(provider.alias, provider));
      throw new UpstreamFailure('unreachable', failure.providerName, { cause: error });
    }
  }
}

/** Only the purpose's own fields are sealed. */
const purposeOf = (purpose: UpstreamPurpose): UpstreamPurpose =>
  isAccountLink(purpose) ? { link: { sid: purpose.link.sid, userId: purpose.link.userId } } : { transactionId: purpose.transactionId, node: purpose.node };

/** The realm, the provider and the state are authenticated with what is sealed: a row copied elsewhere does not open. */
const sealContext = (realm: string, alias: string, stateHash: Buffer) => `broker state\0${realm}\0${alias}\0${stateHash.toString('hex')}`;
