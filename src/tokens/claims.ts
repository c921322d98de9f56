import type { User } from '../store/users.js';

/** OpenID Connect Core §5.4: the standard claims each scope gives access to. */
const SCOPE_CLAIMS: Readonly<Record<string, readonly string[]>> = {
  profile: [
    'name', 'family_name', 'given_name', 'middle_name', 'nickname', 'preferred_username', 'profile',
    'picture', 'website', 'gender', 'birthdate', 'zoneinfo', 'locale', 'updated_at',
  ],
  email: ['email', 'email_verified'],
  address: ['address'],
  phone: ['phone_number', 'phone_number_verified'],
};

/**
 * The claims about a user that the granted scopes release, beside `sub`. The username is
 * the `preferred_username` unless the user's record names another; `updated_at` is the
 * record's.
 */
export function claimsForScope(user: User, scope: readonly string[]): Record<string, unknown> {
  const available: Record<string, unknown> = {
    preferred_username: user.username,
    ...user.claims,
    updated_at: Math.floor(user.updatedAt.getTime() / 1000),
  };
  const released: Record<string, unknown> = {};
  for (const name of scope.flatMap((scopeName) => SCOPE_CLAIMS[scopeName] ?? [])) {
    if (available[name] !== undefined) released[name] = available[name];
  }
  return released;
}
