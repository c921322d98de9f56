import { OAuthError } from '../errors.js';

/** scope-token of RFC 6749 §3.3: printable ASCII except space, `"` and `\`. */
export const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** The scope names of a space-separated scope string, each once, in their first order. */
export function scopeNames(scope: string): string[] {
  return [...new Set(scope.split(' ').filter((name) => name !== ''))];
}

export function isScopeString(scope: string): boolean {
  return scope.split(' ').every((name) => name === '' || SCOPE_TOKEN.test(name));
}

/** Names in `requested` that `allowed` does not contain. */
export function scopesOutside(requested: readonly string[], allowed: readonly string[]): string[] {
  const permitted = new Set(allowed);
  return requested.filter((name) => !permitted.has(name));
}

/**
 * The scope a client asks for (RFC 6749 §3.3): the requested names, each within the
 * client's registered scope, or all of the client's when none is requested.
 */
export function requestedScope(requested: string | undefined, clientScope: string): string[] {
  const allowed = scopeNames(clientScope);
  if (requested === undefined) return allowed;
  if (!isScopeString(requested)) throw new OAuthError('invalid_scope', 'the scope parameter is malformed');
  const names = scopeNames(requested);
  const refused = scopesOutside(names, allowed);
  if (refused.length > 0) throw new OAuthError('invalid_scope', `the client may not request: ${namedBriefly(refused)}`);
  return names;
}

/** A few of the names, each cut short: an error description does not echo a request of any size. */
export function namedBriefly(names: readonly string[], most = 5): string {
  const shown = names.slice(0, most).map((name) => (name.length > 64 ? `${name.slice(0, 64)}…` : name));
  return names.length > most ? `${shown.join(' ')} and ${names.length - most} more` : shown.join(' ');
}

/** Scopes that exist in every realm (CONTRACT.md §5); their descriptions may be changed, not removed. */
export const BUILTIN_SCOPES: ReadonlyArray<{ name: string; description: string }> = [
  { name: 'openid', description: 'Sign you in with your account' },
  { name: 'profile', description: 'See your name and basic profile' },
  { name: 'email', description: 'See your email address' },
];
