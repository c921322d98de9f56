import { OAuthError } from '../errors.js';
import { formParamLists } from '../http/form-params.js';
import type { Client } from '../store/clients.js';

/** The token endpoint's parameters that name where a token may be used, each repeatable. */
const TARGET_PARAMETERS = ['audience', 'resource'] as const;

/** RFC 8707 §2: a resource is an absolute URI without a fragment. */
function isResourceIndicator(value: string): boolean {
  if (value.includes('#')) return false;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * The audiences a token request asks for, with RFC 8693 §2.1 `audience` and RFC 8707 §2
 * `resource` together, at the token endpoint for any grant: undefined when it asks for none.
 * Each must be one of the client's `allowed_audiences` (CONTRACT.md §5; the realm's registered
 * resources are not built yet), else `invalid_target`. Checked before any grant runs, so that a
 * refused request spends no code, refresh token or assertion.
 */
export function requestedAudience(body: unknown, client: Client): string[] | undefined {
  const { audience = [], resource = [] } = formParamLists(body, TARGET_PARAMETERS);
  if (resource.some((value) => !isResourceIndicator(value))) {
    throw new OAuthError('invalid_target', 'each resource must be an absolute URI without a fragment');
  }
  const asked = [...new Set([...audience, ...resource])];
  if (asked.length === 0) return undefined;
  const allowed = client.allowed_audiences ?? [];
  const refused = asked.filter((value) => !allowed.includes(value));
  if (refused.length > 0) {
    // The client's own request names them; they are echoed back to it alone.
    throw new OAuthError('invalid_target', `the client may not ask for this audience: ${refused.slice(0, 3).join(' ')}`);
  }
  return asked;
}

/**
 * RFC 8707 §2.2: a refresh may narrow the grant's audiences, never widen them; by default, the
 * new access token has all of them. A grant without audiences (the realm's own) is bounded by
 * the client's `allowed_audiences` alone, as its code exchange was.
 */
export function narrowedAudience(asked: readonly string[] | undefined, granted: readonly string[] | undefined): readonly string[] | undefined {
  if (asked === undefined || granted === undefined) return asked ?? granted;
  const wider = asked.filter((value) => !granted.includes(value));
  if (wider.length > 0) throw new OAuthError('invalid_target', `the grant does not include this audience: ${wider.slice(0, 3).join(' ')}`);
  return asked;
}
