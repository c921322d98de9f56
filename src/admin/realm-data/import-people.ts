import { ARGON2_BOUNDS, argon2CostExceeded } from '../../authn/password-hashing.js';
import type { StoreTransaction } from '../../store/index.js';
import type { LinkedIdentity, UserIdentity } from '../../store/user-identities.js';
import type { Memberships } from '../../store/memberships.js';
import type { Claims, User } from '../../store/users.js';
import { conflict } from '../validate.js';
import type { PersonEntry } from './document.js';
import { type PlanContext, SectionPlanner, type SectionPlan, invalidAt, refuseDuplicates } from './plan.js';
import { sameJson } from './same.js';

/** People are read a page at a time. */
const PAGE = 1_000;

/** Every person of the realm, by username ignoring case. */
export async function everyone(users: StoreTransaction['users'], realm: string): Promise<User[]> {
  const people: User[] = [];
  for (let after: string | undefined; ; ) {
    const page = await users.list(realm, { search: undefined, after, limit: PAGE });
    people.push(...page);
    if (page.length < PAGE) return people;
    after = page[page.length - 1]!.username;
  }
}

/** A person's own roles and their groups, in name order. */
export type PersonMemberships = Pick<Memberships, 'roles' | 'groups'>;
const NONE: PersonMemberships = { roles: [], groups: [] };

/** A person as the document holds them: never a one-time-code secret, a passkey or a recovery code. */
export function personEntry(user: User, identities: readonly UserIdentity[], memberships: PersonMemberships = NONE): PersonEntry {
  return {
    username: user.username,
    sub: user.id,
    ...(user.passwordHash === undefined ? {} : { password_hash: user.passwordHash }),
    claims: user.claims as PersonEntry['claims'] & object,
    enabled: user.enabled,
    identities: identities.map(({ provider, subject }) => ({ provider, subject })),
    roles: [...memberships.roles],
    groups: [...memberships.groups],
  };
}

/** What the realm will have that people may name. */
export interface PeopleReferences {
  readonly aliases: ReadonlySet<string>;
  readonly roles: ReadonlySet<string>;
  readonly groups: ReadonlySet<string>;
}

const linkKey = (identity: UserIdentity) => `${identity.provider}\n${identity.subject}`;
const inNameOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Refuses the names among `names` that the realm will not have. */
function refuseUnknown(path: string, names: readonly string[], known: ReadonlySet<string>, what: string): void {
  const missing = names.filter((name) => !known.has(name));
  if (missing.length > 0) throw invalidAt(path, `no such ${what} in the realm: ${missing.slice(0, 5).join(', ')}`);
}
const nameKey = (username: string) => username.toLowerCase();

const emailKey = (claims: Claims | undefined): string | undefined => (typeof claims?.email === 'string' ? claims.email.toLowerCase() : undefined);

/**
 * An address is one person's (CONTRACT.md §7): 409 when two people of the document, or one of
 * it and one of the realm it leaves as they are (`kept`), would share one, ignoring case.
 */
function refuseSharedEmails(entries: readonly PersonEntry[], kept: readonly User[]): void {
  const holders = new Map<string, string>();
  for (const person of kept) {
    const email = emailKey(person.claims);
    if (email !== undefined) holders.set(email, `the realm's person "${person.username}"`);
  }
  entries.forEach((entry, index) => {
    const email = emailKey((entry.claims ?? undefined) as Claims | undefined);
    if (email === undefined) return;
    const holder = holders.get(email);
    if (holder) throw conflict(`users.${index}.claims.email: the email address (ignoring case) is ${holder}'s`);
    holders.set(email, `users.${index}`);
  });
}

/** A claim set to null is none (as a PATCH removes it): claims compare and are written without them. */
const withoutNulls = (claims: Claims): Claims => Object.fromEntries(Object.entries(claims).filter(([, value]) => value !== null));

/**
 * Each person of the document, known by their username, becomes as it describes them: their
 * claims, own roles and groups replaced (none named: none), a new password hash written (which
 * ends their sessions and grants, as a password change does), disabled or enabled (left out:
 * enabled; a disable ends their sessions and grants), their links to upstream accounts made. A person keeps their `sub`:
 * a new one is created with the document's, and an existing one whose `sub` differs is refused.
 * A password the document leaves out is kept, never removed. With prune, the people it leaves
 * out are deleted, and the links of the people it names that it leaves out are removed (unless
 * that leaves a person no way to sign in).
 */
export async function planPeople(ctx: PlanContext, entries: readonly PersonEntry[], references: PeopleReferences): Promise<SectionPlan> {
  const { aliases } = references;
  refuseDuplicates('users', entries, (entry) => nameKey(entry.username), 'the same username (ignoring case)');
  refuseDuplicates('users', entries.filter((entry) => entry.sub !== undefined), (entry) => entry.sub!, 'the same sub');
  const links = entries.flatMap((entry) => entry.identities ?? []);
  refuseDuplicates('identities of users', links, linkKey, 'the same upstream account');

  const people = await everyone(ctx.tx.users, ctx.realm);
  const byName = new Map(people.map((person) => [nameKey(person.username), person]));
  const byId = new Map(people.map((person) => [person.id, person]));
  const linked = new Map<string, LinkedIdentity>();
  const linksOf = new Map<string, UserIdentity[]>();
  for (const link of await ctx.tx.userIdentities.ofRealm(ctx.realm)) {
    linked.set(linkKey(link), link);
    linksOf.set(link.userId, [...(linksOf.get(link.userId) ?? []), link]);
  }
  const membershipsOf = await ctx.tx.memberships.ofRealm(ctx.realm);
  const named = new Set(entries.map((entry) => nameKey(entry.username)));
  const deleted = new Set(ctx.prune ? people.filter((person) => !named.has(nameKey(person.username))).map((person) => person.id) : []);

  refuseSharedEmails(entries, people.filter((person) => !deleted.has(person.id) && !named.has(nameKey(person.username))));

  const planner = new SectionPlanner();
  const unlinks: Array<(tx: StoreTransaction) => Promise<void>> = [];
  const newLinks: Array<(tx: StoreTransaction) => Promise<void>> = [];
  for (const person of people.filter((person) => deleted.has(person.id))) {
    planner.delete(person.username, async (tx) => void (await tx.users.delete(ctx.realm, person.username)));
  }

  entries.forEach((entry, index) => {
    const path = `users.${index}`;
    const existing = byName.get(nameKey(entry.username));
    if (entry.sub !== undefined && existing && existing.id !== entry.sub) {
      throw invalidAt(`${path}.sub`, `the realm's person "${existing.username}" has another sub, and a sub never changes`);
    }
    const cost = entry.password_hash === undefined ? undefined : argon2CostExceeded(entry.password_hash);
    if (cost) {
      const { m, t, p } = ARGON2_BOUNDS;
      throw invalidAt(`${path}.password_hash`, `the password hash of "${entry.username}" asks more of argon2 than m=${m}, t=${t}, p=${p} allow (${cost})`);
    }
    const holder = entry.sub === undefined || existing ? undefined : byId.get(entry.sub);
    if (holder && !deleted.has(holder.id)) throw invalidAt(`${path}.sub`, `another person of the realm ("${holder.username}") has it`);
    const wanted = entry.identities ?? [];
    wanted.forEach((identity, at) => {
      if (!aliases.has(identity.provider)) throw invalidAt(`${path}.identities.${at}.provider`, `the realm has no identity provider "${identity.provider}"`);
      const other = linked.get(linkKey(identity));
      if (other && other.userId !== existing?.id && !deleted.has(other.userId) && !unlinkedByPrune(other)) {
        throw invalidAt(`${path}.identities.${at}`, `the upstream account is linked to another person of the realm ("${byId.get(other.userId)?.username}")`);
      }
    });
    const roles = [...(entry.roles ?? [])].sort(inNameOrder);
    const groups = [...(entry.groups ?? [])].sort(inNameOrder);
    refuseUnknown(`${path}.roles`, roles, references.roles, 'role');
    refuseUnknown(`${path}.groups`, groups, references.groups, 'group');
    const claims = withoutNulls((entry.claims ?? {}) as Claims);
    const enabled = entry.enabled ?? true;
    const current = existing ? (linksOf.get(existing.id) ?? []) : [];
    const missing = wanted.filter((identity) => !current.some((link) => linkKey(link) === linkKey(identity)));
    const extra = ctx.prune ? current.filter((link) => !wanted.some((identity) => linkKey(identity) === linkKey(link))) : [];

    if (!existing) {
      planner.create(entry.username, async (tx) => {
        // A new person has nothing to end: a disabled one is created disabled.
        const user = await tx.users.create(ctx.realm, entry.username, entry.password_hash, claims, { id: entry.sub, enabled });
        if (!user) throw conflict(`${path}: a person of this username or sub was created meanwhile`);
        // Their links are made by the last write, which runs after this one.
        for (const identity of wanted) newLinks.push(link(path, user.id, identity));
        await changeMemberships(tx, path, entry.username, NONE, { roles, groups });
      });
      return;
    }
    const memberships = membershipsOf.get(existing.id) ?? NONE;
    const membershipsDiffer = !sameJson(memberships, { roles, groups });
    const claimsDiffer = !sameJson(withoutNulls(existing.claims), claims);
    const passwordHash = entry.password_hash !== undefined && entry.password_hash !== existing.passwordHash ? entry.password_hash : undefined;
    const enabledDiffers = existing.enabled !== enabled;
    if (!claimsDiffer && passwordHash === undefined && !enabledDiffers && !membershipsDiffer && missing.length === 0 && extra.length === 0) {
      planner.unchanged();
      return;
    }
    planner.change(entry.username, async (tx) => {
      if (claimsDiffer || passwordHash !== undefined || enabledDiffers) {
        const removed = Object.keys(existing.claims).filter((name) => !Object.hasOwn(claims, name));
        const patch = { ...claims, ...Object.fromEntries(removed.map((name) => [name, null])) };
        await tx.users.update(ctx.realm, existing.username, {
          ...(claimsDiffer ? { claims: patch } : {}),
          ...(passwordHash === undefined ? {} : { passwordHash }),
          ...(enabledDiffers ? { enabled } : {}),
        });
      }
      if (membershipsDiffer) await changeMemberships(tx, path, existing.username, memberships, { roles, groups });
    });
    for (const identity of extra) unlinks.push(unlink(path, existing.id, identity));
    for (const identity of missing) newLinks.push(link(path, existing.id, identity));
  });
  // Links are removed once every person is written (so that the rule of the last way to sign
  // in sees their new password), and made after that (so that a link may move between people).
  planner.write(async (tx) => {
    for (const write of unlinks) await write(tx);
    for (const write of newLinks) await write(tx);
  });
  return planner.plan();

  /** Whether prune removes this link from its person, whom the document names without it. */
  function unlinkedByPrune(link: LinkedIdentity): boolean {
    if (!ctx.prune) return false;
    const person = byId.get(link.userId);
    const entry = person && entries.find((candidate) => nameKey(candidate.username) === nameKey(person.username));
    return entry !== undefined && !(entry.identities ?? []).some((identity) => linkKey(identity) === linkKey(link));
  }

  /** Gives the person the roles and groups they lack, and takes those the document does not name. */
  async function changeMemberships(tx: StoreTransaction, path: string, username: string, from: PersonMemberships, to: PersonMemberships) {
    const changes = [
      ...to.roles.filter((role) => !from.roles.includes(role)).map((role) => () => tx.memberships.grantRole(ctx.realm, username, role)),
      ...from.roles.filter((role) => !to.roles.includes(role)).map((role) => () => tx.memberships.revokeRole(ctx.realm, username, role)),
      ...to.groups.filter((group) => !from.groups.includes(group)).map((group) => () => tx.memberships.joinGroup(ctx.realm, username, group)),
      ...from.groups.filter((group) => !to.groups.includes(group)).map((group) => () => tx.memberships.leaveGroup(ctx.realm, username, group)),
    ];
    for (const change of changes) {
      if ((await change()) !== 'done') throw conflict(`${path}: the person's roles or groups changed meanwhile`);
    }
  }

  function link(path: string, userId: string, identity: UserIdentity) {
    return async (tx: StoreTransaction) => {
      if (!(await tx.userIdentities.link(ctx.realm, { ...identity, userId }))) {
        throw conflict(`${path}.identities: the upstream account ${identity.provider} ${identity.subject} was linked meanwhile`);
      }
    };
  }

  function unlink(path: string, userId: string, identity: UserIdentity) {
    return async (tx: StoreTransaction) => {
      if ((await tx.userIdentities.unlink(ctx.realm, userId, identity)) === 'only_way') {
        throw invalidAt(`${path}.identities`, `leaving out the link to ${identity.provider} would leave the person no way to sign in`);
      }
    };
  }
}
