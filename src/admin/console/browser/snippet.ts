/**
 * The admin console's snippet module: after a client is made, how to use it, with its values
 * filled in: openid-client in the application, the resource-server plugin in its API, and curl.
 * The secret is never written into them: they read it from CLIENT_SECRET (the secret box shows it once).
 */
import { copyButton, h, sentence } from './dom.js';
import { t } from './i18n.js';
import type { Client } from './records.js';

/** What the snippets are made of. */
export interface SnippetValues {
  readonly issuer: string;
  readonly client: Pick<Client, 'client_id' | 'client_type' | 'redirect_uris' | 'grant_types' | 'scope'>;
  /** The identifier of an API of the realm, if it has one. */
  readonly resource?: string;
}

/** A JavaScript string literal. */
const literal = (value: string): string => JSON.stringify(value);
/** A word for a POSIX shell, in single quotes. */
const shellWord = (value: string): string => "'" + value.replaceAll("'", "'\\''") + "'";

const hasSecret = (client: SnippetValues['client']): boolean => client.client_type === 'confidential';

export function openidClientSnippet({ issuer, client }: SnippetValues): string {
  const secret = hasSecret(client) ? ', process.env.CLIENT_SECRET' : '';
  const lines = [
    "import * as oidc from 'openid-client';",
    '',
    `const config = await oidc.discovery(new URL(${literal(issuer)}), ${literal(client.client_id)}${secret});`,
  ];
  if (client.grant_types.includes('authorization_code')) {
    lines.push(
      '',
      '// ' + t('Sign a person in: send them to url, keep verifier in their session.'),
      'const verifier = oidc.randomPKCECodeVerifier();',
      'const url = oidc.buildAuthorizationUrl(config, {',
      `  redirect_uri: ${literal(client.redirect_uris[0] ?? 'REDIRECT_URI')},`,
      `  scope: ${literal(client.scope)},`,
      '  code_challenge: await oidc.calculatePKCECodeChallenge(verifier),',
      "  code_challenge_method: 'S256',",
      '});',
      '// ' + t('Back at the redirect URI, with the URL the browser came back to:'),
      'const tokens = await oidc.authorizationCodeGrant(config, currentUrl, { pkceCodeVerifier: verifier });',
    );
  }
  if (client.grant_types.includes('client_credentials')) {
    lines.push('', '// ' + t('A token for the application itself:'), `const own = await oidc.clientCredentialsGrant(config, { scope: ${literal(client.scope)} });`);
  }
  return lines.join('\n');
}

export function resourceServerSnippet({ issuer, resource }: SnippetValues): string {
  return [
    "import Fastify from 'fastify';",
    "import { resourceServer } from 'realmgate/resource-server';",
    '',
    'const app = Fastify();',
    'await app.register(resourceServer, {',
    `  issuer: ${literal(issuer)},`,
    `  resource: ${literal(resource ?? 'API_IDENTIFIER')},${resource ? '' : ' // ' + t('the identifier of your API (a resource of the realm)')}`,
    '});',
    "app.get('/me', { onRequest: app.requireToken() }, async (request) => ({ sub: request.token.sub }));",
  ].join('\n');
}

export function curlSnippet({ issuer, client }: SnippetValues): string {
  const lines = ['# ' + t('The realm\'s endpoints and keys:'), `curl ${shellWord(issuer + '/.well-known/openid-configuration')}`];
  const auth = hasSecret(client) ? `-u ${shellWord(client.client_id + ':')}"$CLIENT_SECRET"` : `-d ${shellWord('client_id=' + client.client_id)}`;
  if (client.grant_types.includes('client_credentials')) {
    lines.push('', '# ' + t('A token for the application itself:'), `curl ${auth} -d grant_type=client_credentials -d ${shellWord('scope=' + client.scope)} ${shellWord(issuer + '/access_token')}`);
  }
  if (client.grant_types.includes('authorization_code')) {
    const query = new URLSearchParams({
      client_id: client.client_id,
      response_type: 'code',
      redirect_uri: client.redirect_uris[0] ?? 'REDIRECT_URI',
      scope: client.scope,
      state: 'STATE',
      code_challenge: 'CHALLENGE',
      code_challenge_method: 'S256',
    });
    lines.push(
      '',
      '# ' + t('Open in a browser (CHALLENGE: the S256 of a verifier you keep):'),
      `# ${issuer}/authorize?${query}`,
      '# ' + t('then exchange the code it brings back:'),
      `curl ${auth} -d grant_type=authorization_code -d code="$CODE" -d code_verifier="$VERIFIER" -d ${shellWord('redirect_uri=' + (client.redirect_uris[0] ?? ''))} ${shellWord(issuer + '/access_token')}`,
    );
  }
  return lines.join('\n');
}

const block = (title: string, name: string, text: string) =>
  h('section', { class: 'snippet', 'aria-label': title }, h('h4', {}, title), h('pre', {}, h('code', {}, text)), copyButton(text, name));

/** The three snippets, under a heading, with a Copy button each. */
export function integrationSnippets(values: SnippetValues): HTMLElement {
  return h(
    'section',
    { class: 'integration', 'aria-label': t('Connect {client}', { client: values.client.client_id }) },
    h('h3', {}, sentence(t('Connect {client}'), { client: h('code', {}, values.client.client_id) })),
    h('p', {}, hasSecret(values.client) ? t('The snippets read the secret from CLIENT_SECRET: set it to the secret shown above.') : t('A public client: no secret, PKCE protects the code.')),
    block(t('openid-client (the application)'), t('the openid-client snippet'), openidClientSnippet(values)),
    block(t('realmgate/resource-server (its API)'), t('the resource-server snippet'), resourceServerSnippet(values)),
    block('curl', t('the curl snippet'), curlSnippet(values)),
  );
}
