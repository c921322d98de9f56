import type { Broker } from '../identity-providers/broker.js';
import type { AuditLog } from '../audit/audit-log.js';
import { UpstreamFailure, failureDetails } from '../identity-providers/failures.js';
import { displayNameOf } from '../records/identity-provider.js';
import { formParams } from '../http/form-params.js';
import { identitiesSectionBody } from '../pages/account/identities.js';
import type { Store } from '../store/index.js';
import type { PersonLink } from '../store/user-identities.js';
import { InvalidFormError } from '../web/page-routes.js';
import type { AccountHolder, AccountSection } from './section.js';

const UNLINK = 'identities unlink';
const UNLINK_PATH = '/account/identities/unlink';
const LINK = 'identities link';
const LINK_PATH = '/account/identities/link';

/**
 * "Linked accounts" (CONTRACT.md §10): the person's accounts at the realm's upstream providers,
 * each with when it was linked, and unlinking one. Unlinking changes how the person signs in,
 * so the re-authentication rule applies (src/account/reauthentication.ts); it is refused while
 * the link is the person's only way to sign in (no password, passkey or other link), which the
 * database decides (UserIdentityStore.unlink). An `identity.unlinked` audit event, as linking
 * is an `identity.linked` one. Linking an account at one of the realm's providers is this
 * page's too, and only this page's (CONTRACT.md §8): the person signs in there, and the
 * broker's callback (src/web/broker.ts) links it to the session that asked. The section
 * is left out at a realm without providers.
 */
export function identitiesSection(deps: { store: Pick<Store, 'identityProviders' | 'userIdentities' | 'users' | 'passkeys'>; broker: Broker; audit: AuditLog }): AccountSection {
  const { store, broker } = deps;

  /** Whether the person signs in some other way than their one link: the page offers no unlink otherwise. */
  async function signsInOtherwise(holder: AccountHolder, links: readonly PersonLink[]): Promise<boolean> {
    if (links.length > 1) return true;
    const [user, passkeys] = await Promise.all([
      store.users.getById(holder.realm.name, holder.userId),
      store.passkeys.listForUser(holder.realm.name, holder.userId),
    ]);
    return user?.passwordHash !== undefined || passkeys.length > 0;
  }

  return {
    title: (t) => t.account.sections.identities,
    async render(holder) {
      const [links, providers] = await Promise.all([
        store.userIdentities.linksOf(holder.realm.name, holder.userId),
        store.identityProviders.list(holder.realm.name),
      ]);
      if (links.length === 0 && providers.length === 0) return { body: undefined };
      const nameOf = (alias: string) => {
        const provider = providers.find((each) => each.alias === alias);
        return provider ? displayNameOf(alias, provider) : alias;
      };
      const perProvider = (alias: string) => links.filter((link) => link.provider === alias).length;
      const unlink = links.length > 0 && (await signsInOtherwise(holder, links))
        ? { action: `${holder.realm.issuer}${UNLINK_PATH}`, csrf: holder.csrf(UNLINK) }
        : undefined;
      const views = links.map((link) => ({
        provider: link.provider,
        subject: link.subject,
        name: nameOf(link.provider),
        showSubject: perProvider(link.provider) > 1,
        linkedAt: link.linkedAt,
      }));
      const link = {
        form: { action: `${holder.realm.issuer}${LINK_PATH}`, csrf: holder.csrf(LINK) },
        providers: providers.map((provider) => broker.buttonOf(provider)),
      };
      // Browsers hold the redirect after the link form to its form-action: the providers are listed.
      return { body: identitiesSectionBody(holder.t, { links: views, unlink, link }), formTargets: broker.formTargets(providers) };
    },
    routes(app, tools) {
      // Linking changes how the person signs in: a recent sign-in first (src/account/reauthentication.ts).
      app.post(LINK_PATH, async (request, reply) => {
        const form = formParams(request.body, ['csrf', 'provider']);
        if (form.provider === undefined) throw new InvalidFormError();
        const holder = await tools.credentialHolder(request, reply, LINK, form.csrf);
        if (!holder) return reply;
        const { realm, userId } = holder;
        try {
          return reply.redirect(await broker.beginLink(realm, form.provider, { sid: holder.session.sid, userId }), 303);
        } catch (error) {
          if (!(error instanceof UpstreamFailure)) throw error;
          request.log.warn({ provider: form.provider, ...failureDetails(error) }, 'linking an upstream account could not begin');
          return tools.backToAccount(reply, realm, holder.t.upstream[error.kind](error.providerName));
        }
      });

      app.post(UNLINK_PATH, async (request, reply) => {
        const form = formParams(request.body, ['csrf', 'provider', 'subject']);
        if (form.provider === undefined || form.subject === undefined) throw new InvalidFormError();
        const holder = await tools.credentialHolder(request, reply, UNLINK, form.csrf);
        if (!holder) return reply;
        const { realm, userId } = holder;
        const identity = { provider: form.provider, subject: form.subject };
        const outcome = await store.userIdentities.unlink(realm.name, userId, identity);
        const texts = holder.t.account.identities;
        if (outcome === 'not_linked') return tools.backToAccount(reply, realm, texts.notLinked);
        const provider = await store.identityProviders.get(realm.name, identity.provider);
        const name = provider ? displayNameOf(identity.provider, provider) : identity.provider;
        if (outcome === 'only_way') return tools.backToAccount(reply, realm, texts.refusedOnlyWay(name));
        deps.audit.record({ realm: realm.name, type: 'identity.unlinked', userId, address: request.ip, details: { ...identity, via: 'account' } });
        return tools.backToAccount(reply, realm, texts.unlinked(name));
      });
    },
  };
}
