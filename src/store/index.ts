import type { Logger } from 'pino';
import { type Realm, RealmStore } from './realms.js';
import { type Client, ClientStore } from './clients.js';
import { type Invalidation, SharedCache, listenForInvalidations } from './cache.js';
import { type Db, transactionDb } from './db.js';
import { AdminCallerStore } from './admin-callers.js';
import { AttemptCounters } from './attempt-counters.js';
import { AuditEventStore } from './audit-events.js';
import { AuthorizationCodeStore } from './authorization-codes.js';
import { AuthorizationFlowStore } from './authorization-flow.js';
import { BrokerStateStore } from './broker-states.js';
import { ConsentStore } from './consents.js';
import { IdentityProviderStore, type RealmProviders } from './identity-providers.js';
import { GroupStore } from './groups.js';
import { InitialAccessTokenStore } from './initial-access-tokens.js';
import { MembershipStore } from './memberships.js';
import { OneTimeCodeStore } from './one-time-codes.js';
import { OutboxStore } from './outbox.js';
import { PasskeyStore } from './passkeys.js';
import { WebhookStore } from './webhooks.js';
import { PendingAuthorizationStore } from './pending-authorizations.js';
import { RequestBudgetStore } from './request-budgets.js';
import { type ResourceCache, ResourceStore } from './resources.js';
import { SessionStore } from './sessions.js';
import { SignInSourceStore } from './sign-in-sources.js';
import { SpentAssertionStore } from './spent-assertions.js';
import { type ScopeCache, ScopeStore } from './scopes.js';
import { type DenialRow, RevokedJwts, rememberOnCommit } from './revoked-jwts.js';
import { RoleStore } from './roles.js';
import { ServerStateStore } from './server-state.js';
import { SigningKeyStore, type StoredSigningKey } from './signing-keys.js';
import { MailAllowances } from './mail-allowances.js';
import { TicketStore } from './tickets.js';
import { TokenStore } from './tokens.js';
import { type TrustedIssuer, TrustedIssuerStore } from './trusted-issuers.js';
import { UserIdentityStore } from './user-identities.js';
import { UserStore } from './users.js';
import { WebauthnChallengeStore } from './webauthn-challenges.js';

/** Bounded, so that memory stays flat however many realms and clients there are. */
const CACHE_LIMITS = {
  realms: { max: 10_000, ttlMs: 5 * 60_000 },
  clients: { max: 100_000, ttlMs: 5 * 60_000 },
  signingKeys: { max: 20_000, ttlMs: 60_000 },
  trustedIssuers: { max: 10_000, ttlMs: 5 * 60_000 },
  scopes: { max: 10_000, ttlMs: 5 * 60_000 },
  identityProviders: { max: 10_000, ttlMs: 5 * 60_000 },
  resources: { max: 10_000, ttlMs: 5 * 60_000 },
};

/**
 * The repositories a transaction offers, bound to its connection. Those whose rows are cached
 * (realms, clients, scopes, trusted issuers, identity providers, resources) read the database itself
 * within it, and their writes drop what the caches hold again once the transaction commits.
 */
export type StoreTransaction = Pick<
  Store,
  | 'users'
  | 'tokens'
  | 'pendingAuthorizations'
  | 'realms'
  | 'clients'
  | 'scopes'
  | 'trustedIssuers'
  | 'identityProviders'
  | 'userIdentities'
  | 'roles'
  | 'groups'
  | 'memberships'
  | 'resources'
>;

/** The SQL store: one repository per aggregate, over either database adapter. */
export interface Store {
  readonly db: Db;
  readonly realms: RealmStore;
  readonly clients: ClientStore;
  readonly users: UserStore;
  readonly scopes: ScopeStore;
  readonly signingKeys: SigningKeyStore;
  readonly tokens: TokenStore;
  /** JWT access tokens denied until they expire, kept in memory on every instance. */
  readonly revokedJwts: RevokedJwts;
  readonly sessions: SessionStore;
  /** Deliveries owed to URLs outside: logout tokens, CIBA notifications (src/outbox/deliverer.ts). */
  readonly outbox: OutboxStore;
  readonly consents: ConsentStore;
  readonly authorizationFlow: AuthorizationFlowStore;
  readonly codes: AuthorizationCodeStore;
  readonly serverState: ServerStateStore;
  /** Device authorizations and CIBA requests, polled by their clients. */
  readonly pendingAuthorizations: PendingAuthorizationStore;
  readonly attemptCounters: AttemptCounters;
  /** Per-minute budgets that instances take in shares (src/rate-limits/leases.ts). */
  readonly requestBudgets: RequestBudgetStore;
  /** RFC 7591 §3 initial access tokens, and the self-registrations that spend them. */
  readonly initialAccessTokens: InitialAccessTokenStore;
  readonly trustedIssuers: TrustedIssuerStore;
  /** Where people signed in from, for the risk step. */
  readonly signInSources: SignInSourceStore;
  /** TOTP secrets and recovery codes of the `otp` sign-in step. */
  readonly oneTimeCodes: OneTimeCodeStore;
  /** The jti of JWT assertions and the ID of SAML assertions, each spent once per issuer. */
  readonly spentAssertions: SpentAssertionStore;
  /** WebAuthn credentials of the `passkey` step and the account page. */
  readonly passkeys: PasskeyStore;
  /** Single-use challenges of WebAuthn ceremonies. */
  readonly webauthnChallenges: WebauthnChallengeStore;
  /** The audit trail's rows (src/audit/). */
  readonly auditEvents: AuditEventStore;
  /** Upstream OpenID providers people sign in through (CONTRACT.md §10). */
  readonly identityProviders: IdentityProviderStore;
  /** Upstream accounts linked to people. */
  readonly userIdentities: UserIdentityStore;
  /** Upstream code flows in progress, by their `state`. */
  readonly brokerStates: BrokerStateStore;
  /** Single-use tickets that mails carry: email verification, password reset. */
  readonly tickets: TicketStore;
  /** The mails each recipient address was sent in the last hour (CONTRACT.md §7). */
  readonly mailAllowances: MailAllowances;
  /** The realm's roles (CONTRACT.md §10). */
  readonly roles: RoleStore;
  /** The realm's groups and the roles each gives. */
  readonly groups: GroupStore;
  /** People's roles and groups. */
  readonly memberships: MembershipStore;
  /** The realm's registered resources (RFC 8707, CONTRACT.md §10). */
  readonly resources: ResourceStore;
  /** Callers of the admin API with `root` access tokens, and their roles (CONTRACT.md §14). */
  readonly adminCallers: AdminCallerStore;
  /** A realm's receivers of audit events (CONTRACT.md §16). */
  readonly webhooks: WebhookStore;
  /**
   * Runs `work` in one transaction, committed when it resolves and rolled back when it throws,
   * for what must be used up and written together (a refresh token held while its new tokens
   * are written, a poll that turns an approval into tokens). `work` queries through `tx` alone:
   * the embedded store has one connection, which the transaction holds.
   */
  transaction<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T>;
  /** True when the database answers. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export async function createStore(db: Db, logger?: Logger): Promise<Store> {
  const realmCache = new SharedCache<Realm>('realms', db, CACHE_LIMITS.realms);
  const clientCache = new SharedCache<Client>('clients', db, CACHE_LIMITS.clients);
  const signingKeyCache = new SharedCache<StoredSigningKey[]>('signing_keys', db, CACHE_LIMITS.signingKeys);
  const trustedIssuerCache = new SharedCache<TrustedIssuer>('trusted_issuers', db, CACHE_LIMITS.trustedIssuers);
  const scopeCache: ScopeCache = new SharedCache('scopes', db, CACHE_LIMITS.scopes);
  const identityProviderCache = new SharedCache<RealmProviders>('identity_providers', db, CACHE_LIMITS.identityProviders);
  const resourceCache: ResourceCache = new SharedCache('resources', db, CACHE_LIMITS.resources);
  const revokedJwts = new RevokedJwts(db);
  await listenForInvalidations(db, [realmCache, clientCache, signingKeyCache, trustedIssuerCache, scopeCache, identityProviderCache, resourceCache, revokedJwts]);
  await revokedJwts.load();
  return {
    db,
    realms: new RealmStore(db, realmCache, [clientCache, signingKeyCache, trustedIssuerCache, scopeCache, identityProviderCache, resourceCache]),
    clients: new ClientStore(db, clientCache),
    users: new UserStore(db, revokedJwts),
    scopes: new ScopeStore(db, scopeCache),
    signingKeys: new SigningKeyStore(db, signingKeyCache),
    tokens: new TokenStore(db, revokedJwts),
    revokedJwts,
    sessions: new SessionStore(db, revokedJwts),
    outbox: new OutboxStore(db),
    consents: new ConsentStore(db, revokedJwts),
    authorizationFlow: new AuthorizationFlowStore(db),
    codes: new AuthorizationCodeStore(db),
    serverState: new ServerStateStore(db),
    pendingAuthorizations: new PendingAuthorizationStore(db),
    attemptCounters: new AttemptCounters(db),
    requestBudgets: new RequestBudgetStore(db),
    initialAccessTokens: new InitialAccessTokenStore(db, clientCache),
    trustedIssuers: new TrustedIssuerStore(db, trustedIssuerCache),
    spentAssertions: new SpentAssertionStore(db),
    passkeys: new PasskeyStore(db),
    webhooks: new WebhookStore(db),
    webauthnChallenges: new WebauthnChallengeStore(db),
    signInSources: new SignInSourceStore(db),
    oneTimeCodes: new OneTimeCodeStore(db),
    auditEvents: new AuditEventStore(db),
    identityProviders: new IdentityProviderStore(db, identityProviderCache),
    userIdentities: new UserIdentityStore(db),
    brokerStates: new BrokerStateStore(db),
    tickets: new TicketStore(db),
    mailAllowances: new MailAllowances(db),
    roles: new RoleStore(db),
    groups: new GroupStore(db),
    memberships: new MembershipStore(db),
    adminCallers: new AdminCallerStore(db),
    resources: new ResourceStore(db, resourceCache),
    async transaction(work) {
      const committed: Invalidation[] = [];
      const denied: DenialRow[] = [];
      const result = await db.transaction((connection) => {
        const tx = transactionDb(db, connection);
        const within = <V extends object>(cache: SharedCache<V>) => cache.withinTransaction(committed);
        // The cached repositories are made when the work first asks for them.
        const made = new Map<string, unknown>();
        const once = <T>(name: string, make: () => T): T => (made.has(name) ? made.get(name) : made.set(name, make()).get(name)) as T;
        return work({
          users: new UserStore(tx, rememberOnCommit(denied)),
          tokens: new TokenStore(tx, rememberOnCommit(denied)),
          pendingAuthorizations: new PendingAuthorizationStore(tx),
          get realms() {
            const owned = () => [within(clientCache), within(signingKeyCache), within(trustedIssuerCache), within(scopeCache), within(identityProviderCache), within(resourceCache)];
            return once('realms', () => new RealmStore(tx, within(realmCache), owned()));
          },
          get clients() {
            return once('clients', () => new ClientStore(tx, within(clientCache)));
          },
          get scopes() {
            return once('scopes', () => new ScopeStore(tx, within(scopeCache)));
          },
          get trustedIssuers() {
            return once('trustedIssuers', () => new TrustedIssuerStore(tx, within(trustedIssuerCache)));
          },
          get identityProviders() {
            return once('identityProviders', () => new IdentityProviderStore(tx, within(identityProviderCache)));
          },
          get userIdentities() {
            return once('userIdentities', () => new UserIdentityStore(tx));
          },
          get roles() {
            return once('roles', () => new RoleStore(tx));
          },
          get groups() {
            return once('groups', () => new GroupStore(tx));
          },
          get memberships() {
            return once('memberships', () => new MembershipStore(tx));
          },
          get resources() {
            return once('resources', () => new ResourceStore(tx, within(resourceCache)));
          },
        });
      });
      for (const [cache, key] of committed) cache.drop(key);
      revokedJwts.remember(denied);
      return result;
    },
    async ping() {
      try {
        await db.query('SELECT 1');
        return true;
      } catch (error) {
        logger?.warn({ err: error }, 'database ping failed');
        return false;
      }
    },
    close: () => db.close(),
  };
}
