import { z } from 'zod';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:']);

/**
 * A redirect URI is absolute and has no fragment (RFC 6749 §3.1.2); https, http on a loopback
 * host, or a private-use scheme of a native app (RFC 8252 §7).
 */
export const redirectUri = z.string().max(2000).superRefine((value, ctx) => {
  // The URL parser would forgive these; the stored value must be what /authorize compares exactly.
  if (/[\s\x00-\x1f\x7f]/.test(value)) {
    ctx.addIssue({ code: 'custom', message: 'must not contain whitespace or control characters' });
    return;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'must be an absolute URI' });
    return;
  }
  if (url.hash || value.includes('#')) ctx.addIssue({ code: 'custom', message: 'must not contain a fragment' });
  if (FORBIDDEN_SCHEMES.has(url.protocol)) ctx.addIssue({ code: 'custom', message: `the ${url.protocol} scheme is not allowed` });
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
    ctx.addIssue({ code: 'custom', message: 'http is allowed only for loopback hosts; use https' });
  }
});

/**
 * Where the server POSTs logout tokens (OpenID Connect Back-Channel Logout 1.0 §2.2) or CIBA
 * pings (CIBA Core §4), or a browser loads the front-channel logout page (Front-Channel Logout
 * 1.0 §2): absolute, https or http on a loopback host (CONTRACT.md §12), no fragment.
 */
export const callbackUri = z.string().max(2000).superRefine((value, ctx) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'must be an absolute URI' });
    return;
  }
  if (/[\s\x00-\x1f\x7f]/.test(value)) ctx.addIssue({ code: 'custom', message: 'must not contain whitespace or control characters' });
  if (url.hash || value.includes('#')) ctx.addIssue({ code: 'custom', message: 'must not contain a fragment' });
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname))) {
    ctx.addIssue({ code: 'custom', message: 'must be https (http only on a loopback host)' });
  }
});
