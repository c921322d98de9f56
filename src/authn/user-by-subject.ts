import type { SubjectMapping } from '../records/trusted-issuer.js';
import { isUuid } from '../store/db.js';
import type { User, UserStore } from '../store/users.js';

/** The user whose `sub` (id) this is; a value that is no user id at all is nobody, not a fault. */
export async function userBySubject(users: Pick<UserStore, 'getById'>, realm: string, sub: string): Promise<User | undefined> {
  return isUuid(sub) ? users.getById(realm, sub) : undefined;
}

/** The user an external assertion's subject names, by the trusted issuer's mapping (default: the username). */
export function userByMapping(
  users: Pick<UserStore, 'get' | 'getById' | 'getByEmail'>,
  realm: string,
  mapping: SubjectMapping,
  subject: string,
): Promise<User | undefined> {
  switch (mapping) {
    case 'username':
      return users.get(realm, subject);
    case 'email':
      return users.getByEmail(realm, subject);
    case 'id':
      return userBySubject(users, realm, subject);
  }
}
