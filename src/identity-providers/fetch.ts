import type { IncomingHttpHeaders } from 'node:http';
import type { CustomFetch } from 'openid-client';
import type { OutboundFetcher } from '../http/outbound-fetch.js';

/** An upstream's discovery document, key set and token response are small, and come quickly. */
const LIMITS = { timeoutMs: 10_000, maxBytes: 256 * 1024 };

/**
 * openid-client's fetch (its `customFetch`), made by the project's outbound fetcher: every
 * request to an upstream provider goes through the SSRF guard (src/http/outbound-fetch.ts),
 * with its deadline, size cap and no redirects followed. Its failures (OutboundError) come
 * through as they are.
 */
export function upstreamFetch(outbound: OutboundFetcher): CustomFetch {
  return async (url, options) => {
    const answer = await outbound.fetch(url, {
      method: options.method === 'POST' ? 'POST' : 'GET',
      headers: options.headers,
      ...(options.body === undefined || options.body === null ? {} : { body: bodyText(options.body) }),
      ...LIMITS,
    });
    // A status the Fetch API cannot hold (1xx, 3xx without a body…) is no answer the caller can use.
    const status = answer.status >= 200 && answer.status <= 599 ? answer.status : 502;
    const empty = status === 204 || status === 205 || status === 304;
    return new Response(empty ? null : new Uint8Array(answer.body), { status, headers: headersOf(answer.headers) });
  };
}

function bodyText(body: unknown): string {
  if (typeof body === 'string' || body instanceof URLSearchParams) return body.toString();
  if (body instanceof Uint8Array) return Buffer.from(body).toString('utf8');
  throw new TypeError('an upstream request body is a form or a string');
}

function headersOf(incoming: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return headers;
}
