import { createHash, randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { CookieJar } from 'tough-cookie';
import { type Credentials, basicAuth } from './oauth.js';

/**
 * A person's browser, driven with fetch (undici, keep-alive, a cookie jar, redirects read,
 * not followed), through any server's authorization code flow: it follows redirects, fills
 * the form with a password input (username and password) and the form with a `decision`
 * button (allow) that the pages show, until the redirect URI is reached, then exchanges the
 * code. The pages follow CONTRACT.md §4's shape; where they are and how many hops lie
 * between them is each server's own.
 */

/** What a server's flow needs from the bench. */
export interface FlowSetup {
  /** The `iss` the authorization response must carry (RFC 9207). */
  readonly issuer: string;
  readonly authorizeUrl: string;
  readonly tokenUrl: string;
  readonly client: Credentials;
  /** Never fetched: the flow reads the redirect, as a client's callback would receive it. */
  readonly redirectUri: string;
  readonly scope: string;
  readonly password: string;
}

/**
 * - `first_time`: a new browser (no cookies) and `prompt=login consent`: sign-in and consent every time;
 * - `returning`: the same browser throughout and `prompt=login`: sign-in every time, consent remembered.
 */
export type FlowVariant = 'first_time' | 'returning';

export const STEPS = ['authorize', 'sign-in page', 'sign-in', 'consent page', 'consent', 'other redirects', 'token'] as const;
export type Step = (typeof STEPS)[number];

export interface TokenResponse {
  readonly access_token: string;
  readonly id_token: string;
  readonly refresh_token?: string;
}

const REQUEST_TIMEOUT_MS = 30_000;
/** Hops from the authorization request to the redirect URI before the flow is taken to loop. */
const MAX_HOPS = 12;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const unescape = (text: string): string =>
  text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, name: string) => {
    if (name.startsWith('#x') || name.startsWith('#X')) return String.fromCodePoint(parseInt(name.slice(2), 16));
    if (name.startsWith('#')) return String.fromCodePoint(Number(name.slice(1)));
    return ENTITIES[name] ?? entity;
  });

interface Form {
  readonly kind: 'sign-in' | 'consent';
  readonly action: URL;
  readonly hidden: Record<string, string>;
}

/** The page's sign-in form (with a password input) or consent form (with a `decision` button), if it has one. */
function findForm(page: string, pageUrl: URL): Form | undefined {
  for (const [, attributes = '', content = ''] of page.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)) {
    if (!/\smethod="post"/i.test(` ${attributes}`)) continue;
    const kind = /<input\b[^>]*\sname="password"/.test(content) ? 'sign-in' : /<button\b[^>]*\sname="decision"/.test(content) ? 'consent' : undefined;
    if (!kind) continue;
    const action = /\saction="([^"]*)"/.exec(` ${attributes}`)?.[1];
    const hidden: Record<string, string> = {};
    for (const [tag] of content.matchAll(/<input\b[^>]*>/g)) {
      if (!/\stype="hidden"/.test(tag)) continue;
      const name = /\sname="([^"]*)"/.exec(tag)?.[1];
      if (name !== undefined) hidden[unescape(name)] = unescape(/\svalue="([^"]*)"/.exec(tag)?.[1] ?? '');
    }
    return { kind, action: action ? new URL(unescape(action), pageUrl) : pageUrl, hidden };
  }
  return undefined;
}

interface Answer {
  readonly status: number;
  readonly location: string | null;
  readonly body: string;
  readonly ms: number;
}

export class VirtualBrowser {
  private jar = new CookieJar();
  /** Milliseconds of each kind of request of the current flow. */
  readonly steps = new Map<Step, number>();

  constructor(
    private readonly setup: FlowSetup,
    private readonly username: string,
  ) {}

  private async send(url: URL, init: { form?: Record<string, string>; headers?: Record<string, string> } = {}): Promise<Answer> {
    const headers: Record<string, string> = { ...init.headers };
    const cookie = this.jar.getCookieStringSync(url.href);
    if (cookie) headers.cookie = cookie;
    if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const started = performance.now();
    const response = await fetch(url, {
      method: init.form ? 'POST' : 'GET',
      headers,
      redirect: 'manual',
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
    });
    for (const line of response.headers.getSetCookie()) this.jar.setCookieSync(line, url.href);
    const body = await response.text(); // read to the end: the connection goes back to the pool
    return { status: response.status, location: response.headers.get('location'), body, ms: performance.now() - started };
  }

  private record(step: Step, ms: number): void {
    this.steps.set(step, (this.steps.get(step) ?? 0) + ms);
  }

  /** The whole flow, from the authorization request to the tokens. */
  async flow(variant: FlowVariant): Promise<TokenResponse> {
    this.steps.clear();
    if (variant === 'first_time') this.jar = new CookieJar();
    const { setup } = this;
    const verifier = randomBytes(32).toString('base64url');
    const state = randomBytes(12).toString('base64url');
    let url = new URL(setup.authorizeUrl);
    url.search = new URLSearchParams({
      client_id: setup.client.clientId,
      response_type: 'code',
      redirect_uri: setup.redirectUri,
      scope: setup.scope,
      state,
      nonce: randomBytes(12).toString('base64url'),
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      prompt: variant === 'first_time' ? 'login consent' : 'login',
    }).toString();

    let answer = await this.send(url);
    this.record('authorize', answer.ms);
    const seen = { 'sign-in': 0, consent: 0 };
    let callback: URL | undefined;
    for (let hop = 0; !callback; hop++) {
      if (hop > MAX_HOPS) throw new Error(`no redirect to the client after ${MAX_HOPS} hops; last at ${url.href}`);
      if ((answer.status === 302 || answer.status === 303) && answer.location) {
        const next = new URL(answer.location, url);
        if (`${next.origin}${next.pathname}` === setup.redirectUri) {
          callback = next;
          break;
        }
        url = next;
        answer = await this.send(url);
        const page = answer.status === 200 ? findForm(answer.body, url) : undefined;
        this.record(page ? `${page.kind} page` : 'other redirects', answer.ms);
        continue;
      }
      const form = answer.status === 200 ? findForm(answer.body, url) : undefined;
      if (!form) throw new Error(`${url.pathname}: expected a redirect, a sign-in or a consent page, got ${answer.status}: ${answer.body.slice(0, 200)}`);
      seen[form.kind] += 1;
      if (form.kind === 'sign-in' && seen['sign-in'] > 1) throw new Error(`the sign-in page came back: ${answer.body.slice(0, 300)}`);
      if (form.kind === 'consent' && variant === 'returning') throw new Error('the consent page was shown again; consent was not remembered');
      if (form.kind === 'consent' && seen.consent > 1) throw new Error('the consent page came back');
      const fields: Record<string, string> = form.kind === 'sign-in' ? { username: this.username, password: setup.password } : { decision: 'allow' };
      url = form.action;
      answer = await this.send(url, { form: { ...form.hidden, ...fields } });
      this.record(form.kind, answer.ms);
    }
    if (seen['sign-in'] !== 1) throw new Error('the flow reached the client without a sign-in (prompt=login)');
    if (variant === 'first_time' && seen.consent !== 1) throw new Error('the flow reached the client without consent (prompt=consent)');

    const code = callback.searchParams.get('code');
    if (!code || callback.searchParams.get('state') !== state || callback.searchParams.get('iss') !== setup.issuer) {
      throw new Error(`the redirect lacks the code, the state or the issuer: ${callback.search}`);
    }
    const token = await this.send(new URL(setup.tokenUrl), {
      form: { grant_type: 'authorization_code', code, redirect_uri: setup.redirectUri, code_verifier: verifier },
      headers: { authorization: basicAuth(setup.client) },
    });
    this.record('token', token.ms);
    if (token.status !== 200) throw new Error(`token: ${token.status}: ${token.body.slice(0, 200)}`);
    const tokens = JSON.parse(token.body) as Record<string, unknown>;
    if (typeof tokens.access_token !== 'string' || typeof tokens.id_token !== 'string') throw new Error(`token: no access or ID token: ${token.body.slice(0, 300)}`);
    return tokens as unknown as TokenResponse;
  }
}

/** What a run of flows measured. */
export interface FlowRun {
  /** Milliseconds of each completed flow, sorted. */
  readonly latencies: number[];
  /** Total milliseconds of each kind of request, over the completed flows. */
  readonly stepTotals: Map<Step, number>;
  readonly errors: number;
  readonly errorSamples: string[];
  /** The tokens of the last completed flow. */
  readonly lastTokens: TokenResponse | undefined;
}

/** Every browser loops the flow until the deadline; flows that end after it are not counted. */
export async function driveFlows(browsers: readonly VirtualBrowser[], variant: FlowVariant, seconds: number): Promise<FlowRun> {
  const latencies: number[] = [];
  const stepTotals = new Map<Step, number>();
  const errorSamples: string[] = [];
  let errors = 0;
  let lastTokens: TokenResponse | undefined;
  const deadline = performance.now() + seconds * 1000;
  await Promise.all(
    browsers.map(async (browser) => {
      while (performance.now() < deadline) {
        const started = performance.now();
        try {
          const tokens = await browser.flow(variant);
          if (performance.now() > deadline) break;
          latencies.push(performance.now() - started);
          lastTokens = tokens;
          for (const [step, ms] of browser.steps) stepTotals.set(step, (stepTotals.get(step) ?? 0) + ms);
        } catch (error) {
          if (performance.now() > deadline) break;
          errors += 1;
          const message = (error as Error).message;
          if (errorSamples.length < 5 && !errorSamples.includes(message)) errorSamples.push(message);
        }
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return { latencies, stepTotals, errors, errorSamples, lastTokens };
}

/** `count` refresh tokens, each of its own grant, from first-time flows run by the browsers side by side. */
export async function obtainRefreshTokens(browsers: readonly VirtualBrowser[], count: number): Promise<string[]> {
  const tokens: string[] = [];
  await Promise.all(
    browsers.map(async (browser) => {
      while (tokens.length < count) {
        const { refresh_token: refreshToken } = await browser.flow('first_time');
        if (!refreshToken) throw new Error('the token endpoint issued no refresh token');
        tokens.push(refreshToken);
      }
    }),
  );
  return tokens.slice(0, count);
}
