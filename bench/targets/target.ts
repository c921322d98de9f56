import type { Endpoint } from '../oauth.js';

/** A server under load, running in its own process. */
export interface Target {
  readonly token: Endpoint;
  readonly introspection: Endpoint;
  stop(): Promise<void>;
}
