import type { Agent } from 'node:https';
import { OutboundError, type OutboundFetcher } from '../http/outbound-fetch.js';

export interface SectorIdentifierFetcherOptions {
  /** The SSRF-guarded fetcher, with the operator's `OUTBOUND_ALLOW` (src/http/outbound-fetch.ts). */
  outbound: OutboundFetcher;
  /** The HTTPS agent: tests pass one that trusts their own certificate authority. */
  agent?: Agent;
  timeoutMs?: number;
}

/** A JSON array of some hundreds of URIs fits easily. */
const MAX_BYTES = 64 * 1024;
const DEFAULT_TIMEOUT_MS = 3_000;

/** Each failure of the fetch, in words that never quote the URL (it may hold a credential). */
const FAILURES: Record<OutboundError['failure'], string> = {
  invalid_url: 'is not a URL',
  scheme: 'must be an https URL',
  refused_address: 'must not point at a loopback, private, link-local or otherwise internal address',
  not_found: 'could not be fetched: its host name does not resolve',
  timeout: 'could not be fetched in time',
  too_large: `could not be fetched: its document is larger than ${MAX_BYTES / 1024} KiB`,
  network: 'could not be fetched',
};

/**
 * OpenID Connect Registration §5: a client's `sector_identifier_uri` is fetched when it is set
 * (by an admin, a registration or an import), through the outbound fetcher (the SSRF guard
 * judging the address connected to, https only, no redirects, 64 KiB and 3 s at most), and must
 * be a JSON array of strings holding every redirect URI of the client. Never cached: each
 * change of the record is judged by the document as it is then.
 */
export class SectorIdentifierFetcher {
  private readonly outbound: OutboundFetcher;
  private readonly agent: Agent | undefined;
  private readonly timeoutMs: number;

  constructor(options: SectorIdentifierFetcherOptions) {
    this.outbound = options.outbound;
    this.agent = options.agent;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** What is wrong with the client's `sector_identifier_uri`, worded after the field's name; undefined when nothing is. */
  async problem(uri: string, redirectUris: readonly string[]): Promise<string | undefined> {
    let body: Buffer;
    try {
      const response = await this.outbound.fetch(uri, {
        headers: { accept: 'application/json' },
        timeoutMs: this.timeoutMs,
        maxBytes: MAX_BYTES,
        httpsOnly: true,
        ...(this.agent ? { agent: this.agent } : {}),
      });
      if (response.status !== 200) return `could not be fetched: it answered HTTP ${response.status}`;
      body = response.body;
    } catch (error) {
      if (error instanceof OutboundError) return FAILURES[error.failure];
      throw error;
    }
    let listed: unknown;
    try {
      listed = JSON.parse(body.toString('utf8'));
    } catch {
      return 'its document is not JSON';
    }
    if (!Array.isArray(listed) || !listed.every((entry) => typeof entry === 'string')) return 'its document is not a JSON array of URIs';
    const missing = redirectUris.filter((uri) => !listed.includes(uri));
    if (missing.length > 0) return `its document does not list every redirect URI of the client (${missing.length} missing)`;
    return undefined;
  }
}

/** The fields of a client record the document is checked against. */
type SectorFields = { sector_identifier_uri?: string | undefined; redirect_uris: readonly string[] };

/**
 * Whether a change from `before` (none for a new client) to `after` must fetch the document
 * again: it is set, and it or the redirect URIs it must list changed.
 */
export function sectorIdentifierToCheck(after: SectorFields, before?: SectorFields): string | undefined {
  const uri = after.sector_identifier_uri;
  if (uri === undefined) return undefined;
  if (before === undefined || before.sector_identifier_uri !== uri) return uri;
  const sameRedirects = before.redirect_uris.length === after.redirect_uris.length && after.redirect_uris.every((value) => before.redirect_uris.includes(value));
  return sameRedirects ? undefined : uri;
}
