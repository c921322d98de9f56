/**
 * The admin console's main module: signs in through the root realm (session.ts) or asks for
 * the admin token, then shows the view the URL's fragment names (`#/realms`,
 * `#/realms/{realm}/{tab}`, and a record of its own: `#/realms/{realm}/users/{username}`,
 * `…/clients/{client_id}`, `…/scopes/{name}`), with what the person may not
 * do disabled (permissions.ts).
 */
import { adminToken, api, ApiError, call } from './api.js';
import { clientsView } from './clients.js';
import { element, field, h, link, quiet, say } from './dom.js';
import { eventsView } from './events.js';
import { consoleLocale, t } from './i18n.js';
import { trustedIssuersView } from './issuers.js';
import { journeysView } from './journeys.js';
import { keysView } from './keys.js';
import { languagePicker } from './language-picker.js';
import { identityProvidersView } from './providers.js';
import { realmsView } from './realms.js';
import { settingsView } from './settings.js';
import { groupsView, rolesView } from './roles.js';
import { usePermissions } from './permissions.js';
import { initialAccessTokensView } from './registration.js';
import { resourcesView } from './resources.js';
import { scopesView } from './scopes.js';
import { textsView } from './texts.js';
import { completeSignIn, forgetSession, sessionToken, signedInAs, signIn, signOut as endSession } from './session.js';
import { usersView } from './users.js';

/** A tab of a realm; `record`: the one its URL names (a person's username), opened at once. */
type View = (realm: string, panel: HTMLElement, record?: string) => Promise<void>;

/** The tabs by their path; each label is the English key `t` gives in the console's language (test/admin/console-catalogues.test.ts reads them). */
const TABS: Record<string, readonly [label: string, view: View]> = {
  settings: ['Settings', settingsView],
  clients: ['Clients', clientsView],
  users: ['Users', usersView],
  scopes: ['Scopes', scopesView],
  roles: ['Roles', rolesView],
  groups: ['Groups', groupsView],
  resources: ['Resources', resourcesView],
  journeys: ['Journeys', journeysView],
  'identity-providers': ['Identity providers', identityProvidersView],
  'trusted-issuers': ['Trusted issuers', trustedIssuersView],
  'initial-access-tokens': ['Initial access tokens', initialAccessTokensView],
  keys: ['Signing keys', keysView],
  texts: ['Texts', textsView],
  events: ['Events', eventsView],
};

const view = element('view');
const signOut = element('sign-out');

/** The shell's own words (page.ts renders them in English), in the console's language. */
function wordShell(): void {
  document.documentElement.lang = consoleLocale();
  document.title = t('Admin console · realmgate');
  element('console-title').textContent = t('realmgate admin console');
}

/** Signing in through the root realm, or the token form: the token is checked with a harmless call before it is kept. */
function askForToken(): void {
  signOut.hidden = true;
  const realmSignIn = h(
    'section',
    { class: 'sign-in', 'aria-label': t('Sign in') },
    h('h2', {}, t('Sign in')),
    h('p', {}, t('Administrators sign in through the root realm; what the console shows follows their realmgate-* roles.')),
    h('button', { type: 'button', class: 'primary', onclick: () => void signIn() }, t('Sign in with realmgate')),
  );
  const input = h('input', { name: 'token', type: 'password', autocomplete: 'off', required: true, spellcheck: 'false' });
  const form = h(
    'form',
    { class: 'token', 'aria-label': t('Open the console') },
    h('h2', {}, t('Admin token')),
    h('p', {}, t('The console calls the admin API with the ADMIN_TOKEN of this server. It is kept for this tab only, and forgotten when the tab closes.')),
    field(t('Admin token'), input),
    h('button', { type: 'submit', class: 'primary' }, t('Open the console')),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const token = input.value.trim();
    try {
      await call('GET', '/realms', undefined, token);
    } catch (error) {
      say(error instanceof ApiError && error.status === 401 ? t('This admin token was refused. Check it (it is the ADMIN_TOKEN the server was started with) and try again.') : (error as Error).message, 'error');
      input.select();
      return;
    }
    adminToken.set(token);
    quiet();
    show();
  });
  view.replaceChildren(realmSignIn, form);
  input.focus();
}

/** The realm's heading and tabs, then the tab itself. */
async function realmPage(realm: string, tab: string, record: string | undefined): Promise<void> {
  const [label, render] = TABS[tab] ?? TABS.settings!;
  const title = t(label);
  const panel = h('section', { class: 'panel', 'aria-label': title });
  const links = () =>
    Object.entries(TABS).map(([name, [label]]) =>
      h('a', { href: '#/realms/' + encodeURIComponent(realm) + '/' + name, 'aria-current': name === tab ? 'page' : null }, t(label)),
    );
  // A row of tabs on a desktop; on a phone, where they would take five rows, a menu that names the open one.
  const tabs = [
    h('nav', { class: 'tabs', 'aria-label': t('Realm') }, links()),
    h('nav', { class: 'tab-menu', 'aria-label': t('Realm') }, h('details', {}, h('summary', {}, title), h('div', { class: 'tab-menu-links' }, links()))),
  ];
  // A signed-in person sees what their roles allow; ADMIN_TOKEN may do everything.
  usePermissions(sessionToken() ? (await api.permissions(realm)).operations : undefined);
  view.replaceChildren(h('p', { class: 'crumbs' }, link('#/realms', t('Realms')), ' / '), h('h2', {}, realm), ...tabs, panel);
  await render(realm, panel, record);
}

const decoded = (part: string): string => {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
};

/** The view the fragment names, once a token is kept. */
async function show(): Promise<void> {
  if (!sessionToken() && !adminToken.get()) return askForToken();
  signOut.hidden = false;
  const person = signedInAs();
  signOut.textContent = !sessionToken() ? t('Forget the token') : person ? t('Sign out {person}', { person }) : t('Sign out');
  const [, section, realm, tab, record] = location.hash.split('/').map(decoded);
  try {
    if (section === 'realms' && realm) await realmPage(realm, tab ?? 'settings', record || undefined);
    else {
      // Creating and importing realms are judged as in any realm: those of the first one the person sees.
      const first = sessionToken() ? (await api.realms())[0] : undefined;
      usePermissions(first ? (await api.permissions(first.name)).operations : undefined);
      await realmsView(view);
    }
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 401)) say((error as Error).message, 'error');
  }
}

addEventListener('hashchange', show);

// A message is about what was just done: following a link clears it.
document.addEventListener('click', (event) => {
  if (event.target instanceof Element && event.target.closest('a[href^="#"]')) quiet();
});

// A token refused later (the server's was changed): forget it and ask again.
addEventListener('admin-token-refused', () => {
  if (sessionToken()) {
    forgetSession();
    askForToken();
    say(t('Your session ended or lost its roles: sign in again.'), 'error');
    return;
  }
  if (!adminToken.get()) return;
  adminToken.forget();
  askForToken();
  say(t('The admin token was refused: enter it again.'), 'error');
});

signOut.addEventListener('click', () => {
  if (sessionToken()) return void endSession();
  adminToken.forget();
  quiet();
  askForToken();
});

/** A session that ends (its refresh refused) asks to sign in again. */
function sessionExpired(): void {
  askForToken();
  say(t('Your session ended: sign in again.'), 'error');
}

/** A language chosen: the shell and the view drawn again in it, on the same URL; a message said in the other is dropped. */
function redraw(): void {
  wordShell();
  quiet();
  void show();
}

wordShell();
element('console-title').after(languagePicker(redraw));

completeSignIn(sessionExpired).then(
  () => show(),
  (error: unknown) => {
    askForToken();
    say((error as Error).message, 'error');
  },
);
