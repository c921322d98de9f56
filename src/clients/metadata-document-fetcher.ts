import type { IncomingHttpHeaders } from 'node:http';
import type { Agent } from 'node:https';
import { LRUCache } from 'lru-cache';
import { OutboundError, type OutboundFetcher } from '../http/outbound-fetch.js';
import { MetadataDocumentError } from './metadata-document.js';

export interface MetadataDocumentFetcherOptions {
  /** The SSRF-guarded fetcher, with the operator's `OUTBOUND_ALLOW` (src/http/outbound-fetch.ts). */
  outbound: OutboundFetcher;
  /** The whole fetch, headers and body, must end within this. */
  timeoutMs?: number;
  /** A larger document is refused while it streams in. */
  maxBytes?: number;
  /** Bounds of how long a document is used, whatever its caching headers say. */
  minLifetimeMs?: number;
  maxLifetimeMs?: number;
  /** How long a document without caching headers is used. */
  defaultLifetimeMs?: number;
  /** How long a failed fetch, or a document found invalid, answers for its URL without a new fetch. */
  failureLifetimeMs?: number;
  /** Documents kept. */
  maxEntries?: number;
  /** The HTTPS agent: tests pass one that trusts their own certificate authority. */
  agent?: Agent;
  now?: () => number;
}

/** A fetched document: its JSON, used until `expiresAt` (ms since the epoch). */
export interface FetchedDocument {
  readonly content: unknown;
  readonly expiresAt: number;
}

const DEFAULTS = {
  timeoutMs: 3_000,
  // draft-ietf-oauth-client-id-metadata-document §6.6: "5 kilobytes".
  maxBytes: 5 * 1024,
  // A client that forbids caching is still fetched at most once a minute per instance: else
  // each of its requests would make this server call it (and any URL a client names).
  minLifetimeMs: 60_000,
  // A day: a changed document (a redirect URI removed, a key replaced) is taken within it. Never
  // more: the cleanup deletes anchors untouched for three days (src/store/cleanup.ts), which no
  // instance may still be using.
  maxLifetimeMs: 24 * 3600_000,
  defaultLifetimeMs: 5 * 60_000,
  // A URL that fails (or serves an invalid document) is not fetched again for ten seconds:
  // otherwise anyone could make this server fetch it once per request that names it.
  failureLifetimeMs: 10_000,
  maxEntries: 10_000,
};

/** Why a URL has no document, until when. */
interface Failure {
  readonly error: MetadataDocumentError;
  readonly until: number;
}

/** RFC 8259 JSON by its media type: application/json, or a structured +json type (§4.1 "application/<AS-defined>+json"). */
const JSON_MEDIA_TYPE = /^application\/(?:json|[\w.+-]+\+json)\s*(?:;|$)/i;

/**
 * Client ID metadata documents (draft-ietf-oauth-client-id-metadata-document §4): fetched with
 * the outbound fetcher (the SSRF guard judging the address connected to, https only, redirects
 * never followed, 5 KiB and 3 s at most), kept per URL in a bounded LRU of this process for as
 * long as their caching headers say (Cache-Control max-age, else Expires), within bounds
 * (§4.4). A failure is never taken for a document (§4.4: invalid documents are not cached), but
 * it answers for its URL for `failureLifetimeMs` before the next fetch. Concurrent requests for
 * one URL share one fetch.
 */
export class MetadataDocumentFetcher {
  private readonly options: typeof DEFAULTS;
  private readonly outbound: OutboundFetcher;
  private readonly agent: Agent | undefined;
  private readonly now: () => number;
  private readonly documents: LRUCache<string, FetchedDocument>;
  private readonly failures: LRUCache<string, Failure>;
  private readonly pending = new Map<string, Promise<FetchedDocument>>();
  /** Fetches started, for tests. */
  fetches = 0;

  constructor(options: MetadataDocumentFetcherOptions) {
    this.options = {
      timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
      maxBytes: options.maxBytes ?? DEFAULTS.maxBytes,
      minLifetimeMs: options.minLifetimeMs ?? DEFAULTS.minLifetimeMs,
      maxLifetimeMs: Math.min(options.maxLifetimeMs ?? DEFAULTS.maxLifetimeMs, DEFAULTS.maxLifetimeMs),
      defaultLifetimeMs: options.defaultLifetimeMs ?? DEFAULTS.defaultLifetimeMs,
      failureLifetimeMs: options.failureLifetimeMs ?? DEFAULTS.failureLifetimeMs,
      maxEntries: options.maxEntries ?? DEFAULTS.maxEntries,
    };
    this.outbound = options.outbound;
    this.agent = options.agent;
    this.now = options.now ?? Date.now;
    this.documents = new LRUCache({ max: this.options.maxEntries });
    this.failures = new LRUCache({ max: this.options.maxEntries });
  }

  /** The document at `url` (a client_id URL already checked); throws a MetadataDocumentError saying why there is none. */
  document(url: string): Promise<FetchedDocument> {
    const cached = this.documents.get(url);
    if (cached && cached.expiresAt > this.now()) return Promise.resolve(cached);
    const failure = this.failures.get(url);
    if (failure && failure.until > this.now()) return Promise.reject(failure.error);
    let fetching = this.pending.get(url);
    if (!fetching) {
      fetching = this.fetch(url)
        .catch((error: unknown) => {
          if (error instanceof MetadataDocumentError) this.remember(url, error);
          throw error;
        })
        .finally(() => this.pending.delete(url));
      this.pending.set(url, fetching);
    }
    return fetching;
  }

  /** Drops a document found invalid, unless a newer one replaced it, and answers its URL with the error for a while. */
  forget(url: string, document: FetchedDocument, error: MetadataDocumentError): void {
    if (this.documents.get(url) !== document) return;
    this.documents.delete(url);
    this.remember(url, error);
  }

  private remember(url: string, error: MetadataDocumentError): void {
    this.failures.set(url, { error, until: this.now() + this.options.failureLifetimeMs });
  }

  private async fetch(url: string): Promise<FetchedDocument> {
    this.fetches += 1;
    let response;
    try {
      response = await this.outbound.fetch(url, {
        headers: { accept: 'application/json' },
        timeoutMs: this.options.timeoutMs,
        maxBytes: this.options.maxBytes,
        httpsOnly: true,
        ...(this.agent ? { agent: this.agent } : {}),
      });
    } catch (error) {
      if (error instanceof OutboundError) throw new MetadataDocumentError(`the client's metadata document could not be fetched: ${this.describe(error)}`);
      throw error;
    }
    const unusable = (problem: string) => new MetadataDocumentError(`the client's metadata document ${problem}`);
    if (response.status >= 300 && response.status < 400) throw unusable('URL answered with a redirect, which is not followed');
    if (response.status !== 200) throw unusable(`URL answered HTTP ${response.status}`);
    if (!JSON_MEDIA_TYPE.test(headerValue(response.headers['content-type']) ?? '')) throw unusable('is not served as JSON (application/json)');
    let content: unknown;
    try {
      content = JSON.parse(response.body.toString('utf8'));
    } catch {
      throw unusable('is not JSON');
    }
    const fetchedAt = this.now();
    const document = { content, expiresAt: fetchedAt + this.lifetimeMs(response.headers, fetchedAt) };
    this.documents.set(url, document);
    this.failures.delete(url);
    return document;
  }

  private describe(error: OutboundError): string {
    switch (error.failure) {
      case 'refused_address':
        return 'its host is a loopback, private or otherwise internal address';
      case 'timeout':
        return `no complete answer within ${this.options.timeoutMs / 1000} s`;
      case 'too_large':
        return `it is larger than ${this.options.maxBytes} bytes`;
      case 'not_found':
        return 'its host name does not resolve';
      default:
        return error.message;
    }
  }

  /** RFC 9111 §4.2.1: max-age (less Age), else Expires less Date; bounded. */
  private lifetimeMs(headers: IncomingHttpHeaders, now: number): number {
    const { minLifetimeMs, maxLifetimeMs, defaultLifetimeMs } = this.options;
    const bounded = (ms: number) => Math.min(maxLifetimeMs, Math.max(minLifetimeMs, ms));
    const directives = new Map(
      (headerValue(headers['cache-control']) ?? '')
        .split(',')
        .map((part) => part.trim().toLowerCase().split('=', 2) as [string, string | undefined])
        .filter(([name]) => name !== ''),
    );
    if (directives.has('no-store') || directives.has('no-cache')) return minLifetimeMs;
    const maxAge = directives.get('max-age')?.replace(/^"(.*)"$/, '$1');
    if (maxAge !== undefined && /^\d{1,10}$/.test(maxAge)) {
      const age = Number(headerValue(headers.age));
      return bounded((Number(maxAge) - (Number.isFinite(age) && age > 0 ? age : 0)) * 1000);
    }
    const expires = headerValue(headers.expires);
    if (expires !== undefined) {
      const expiresAt = Date.parse(expires);
      const date = Date.parse(headerValue(headers.date) ?? '');
      // An invalid Expires (such as "0") means already expired (RFC 9111 §5.3).
      return bounded(Number.isNaN(expiresAt) ? 0 : expiresAt - (Number.isNaN(date) ? now : date));
    }
    return bounded(defaultLifetimeMs);
  }
}

const headerValue = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(', ') : value);
