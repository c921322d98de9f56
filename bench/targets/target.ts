import type { FlowSetup } from '../browser.js';
import type { Credentials } from '../oauth.js';
import type { CpuProbe } from '../procfs.js';

export const SERVERS = ['realmgate', 'oidc-provider', 'ceiling'] as const;
export type ServerName = (typeof SERVERS)[number];

/** Access tokens: opaque and stored, or RFC 9068 JWTs stored nowhere. */
export type TokenFormat = 'opaque' | 'jwt';

/** What a server process is started with: the kind of access tokens, and the people who sign in. */
export interface TargetOptions {
  readonly tokens: TokenFormat;
  /** The realm (realmgate), so that each process on the same database has its own. */
  readonly realm: string;
  readonly usernames: readonly string[];
  readonly password: string;
}

/** A server under load, running in its own process, with the clients and people of every scenario. */
export interface Target extends CpuProbe {
  readonly tokenUrl: string;
  readonly introspectionUrl: string;
  /** A confidential client of the client credentials grant, scope `api`. */
  readonly service: Credentials;
  /** The people's browsers go through this server's authorization code flow, with a client allowed refresh tokens. */
  readonly flow: FlowSetup;
  /** Checks that an access token issued to `client` is live: by introspection, or by its signature. */
  checkAccessToken(token: string, client: Credentials): Promise<void>;
  stop(): Promise<void>;
}
