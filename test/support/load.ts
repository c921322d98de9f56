import { setTimeout as delay } from 'node:timers/promises';
import { hiddenInputs, pkce } from './flow.js';

/**
 * A small load generator for fault tests: a few concurrent loops of token requests against a
 * running server (or the load balancer in front of it), each answer recorded with its time,
 * status and the instance that served it, and every token answered 200 kept for later checks.
 * Bounded in time; it stops by itself.
 */

export interface Answer {
  label: string;
  /** Date.now() when the request was sent and when its answer (or failure) came. */
  start: number;
  end: number;
  /** 0 when no answer came: `error` says why. */
  status: number;
  json: Record<string, unknown> | undefined;
  /** nginx's X-Upstream: the instance(s) that served it, in the order tried. */
  upstream: string | null;
  retryAfter: string | null;
  error?: string;
}

export const latency = (answer: Answer): number => answer.end - answer.start;

/** POSTs a form and records the answer; never throws. */
export async function timedPost(
  label: string,
  url: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
  timeoutMs = 30_000,
): Promise<Answer> {
  const start = Date.now();
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form).toString(),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    let json: Record<string, unknown> | undefined;
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      json = undefined;
    }
    return {
      label,
      start,
      end: Date.now(),
      status: response.status,
      json,
      upstream: response.headers.get('x-upstream'),
      retryAfter: response.headers.get('retry-after'),
    };
  } catch (error) {
    const cause = (error as Error).cause as { code?: string } | undefined;
    return { label, start, end: Date.now(), status: 0, json: undefined, upstream: null, retryAfter: null, error: cause?.code ?? String(error) };
  }
}

/** A token answered 200, for checking later that it is still honoured. */
export interface IssuedToken {
  token: string;
  kind: 'access_token' | 'refresh_token';
  /** When its answer came. */
  at: number;
  label: string;
  /** A refresh token that a later request of the load rotated (so it is used, and no longer active). */
  rotated?: boolean;
  /**
   * A refresh token presented by a request that got no answer (the server was killed under
   * it): it may have been spent or not, and the client cannot know which.
   */
  inDoubt?: boolean;
}

/** One kind of token request: its next form, and what it learns from the answer. */
export interface RequestKind {
  label: string;
  /** The next request, or undefined when this kind has nothing to send now. */
  next(): { form: Record<string, string>; settle(answer: Answer, issued: IssuedToken[]): void } | undefined;
}

/** client_credentials: always something to send. */
export function clientCredentialsRequests(): RequestKind {
  return { label: 'client_credentials', next: () => ({ form: { grant_type: 'client_credentials' }, settle: () => {} }) };
}

/**
 * Refresh token rotations along independent chains: a chain is used by one loop at a time,
 * goes on with the new refresh token after a 200, and is tried again with the same one after
 * a 503 (nothing was done); any other answer, or none, ends it.
 */
export function refreshRequests(chains: IssuedToken[]): RequestKind {
  const idle = [...chains];
  return {
    label: 'refresh_token',
    next() {
      const chain = idle.shift();
      if (!chain) return undefined;
      return {
        form: { grant_type: 'refresh_token', refresh_token: chain.token },
        settle(answer, issued) {
          const successor = issued.find((token) => token.kind === 'refresh_token');
          if (successor) {
            chain.rotated = true;
            idle.push(successor);
          } else if (answer.status === 503) {
            idle.push(chain);
          } else if (answer.status === 0) {
            chain.inDoubt = true;
          }
        },
      };
    },
  };
}

export interface PreparedCode {
  code: string;
  verifier: string;
  redirectUri: string;
}

/** Authorization code exchanges, each code once; a code whose exchange answered 503 is tried again. */
export function codeRequests(codes: PreparedCode[]): RequestKind {
  const waiting = [...codes];
  return {
    label: 'authorization_code',
    next() {
      const code = waiting.shift();
      if (!code) return undefined;
      return {
        form: { grant_type: 'authorization_code', code: code.code, code_verifier: code.verifier, redirect_uri: code.redirectUri },
        settle(answer) {
          if (answer.status === 503) waiting.push(code);
        },
      };
    },
  };
}

/** The tokens of a 200 token response. */
export function issuedFrom(answer: Answer): IssuedToken[] {
  if (answer.status !== 200 || !answer.json) return [];
  const tokens: IssuedToken[] = [];
  for (const kind of ['access_token', 'refresh_token'] as const) {
    const token = answer.json[kind];
    if (typeof token === 'string') tokens.push({ token, kind, at: answer.end, label: answer.label });
  }
  return tokens;
}

export interface LoadOptions {
  tokenUrl: string;
  /** The client's Authorization header. */
  authorization: string;
  kinds: RequestKind[];
  concurrency: number;
  /** Each loop waits this long between requests, so that the load stays modest. */
  pauseMs: number;
  /** After an answer other than 200, a loop waits this long (a client would honour Retry-After; a short pause keeps the figures precise). */
  pauseAfterFailureMs?: number;
  /** The load stops by itself after this long. */
  maxMs: number;
}

export class TokenLoad {
  readonly answers: Answer[] = [];
  readonly issued: IssuedToken[] = [];
  private stopping = false;
  private turn = 0;
  private readonly loops: Promise<void>[];
  readonly startedAt = Date.now();

  constructor(private readonly options: LoadOptions) {
    this.loops = Array.from({ length: options.concurrency }, () => this.loop());
  }

  /** Stops sending; resolves once every request in flight has its answer. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.loops);
  }

  /** Resolves once `count` more answers came (or the load ended). */
  async answered(count: number): Promise<void> {
    const target = this.answers.length + count;
    while (this.answers.length < target && !this.stopping && Date.now() - this.startedAt < this.options.maxMs) await delay(10);
  }

  private async loop(): Promise<void> {
    const { options } = this;
    while (!this.stopping && Date.now() - this.startedAt < options.maxMs) {
      const request = this.nextRequest();
      if (!request) {
        await delay(options.pauseMs);
        continue;
      }
      const answer = await timedPost(request.label, options.tokenUrl, request.form, { authorization: options.authorization });
      const issued = issuedFrom(answer);
      this.answers.push(answer);
      this.issued.push(...issued);
      request.settle(answer, issued);
      await delay(answer.status === 200 ? options.pauseMs : (options.pauseAfterFailureMs ?? options.pauseMs));
    }
  }

  /** The kinds take turns; one with nothing to send passes its turn on. */
  private nextRequest(): ({ label: string } & NonNullable<ReturnType<RequestKind['next']>>) | undefined {
    const { kinds } = this.options;
    for (let tried = 0; tried < kinds.length; tried++) {
      const kind = kinds[this.turn++ % kinds.length]!;
      const request = kind.next();
      if (request) return { label: kind.label, ...request };
    }
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// A browser made of fetch calls: enough to sign in once and collect authorization codes.

/**
 * Signs `username` in at the realm's pages (consenting once) and returns `count` codes of
 * the code flow with PKCE, each from its own /authorize request on the same session.
 */
export async function prepareCodes(input: {
  issuer: string;
  clientId: string;
  redirectUri: string;
  username: string;
  password: string;
  scope: string;
  count: number;
  /** The browser's cookies (its session's among them), kept for the caller when given. */
  cookies?: Map<string, string>;
}): Promise<PreparedCode[]> {
  const cookies = input.cookies ?? new Map<string, string>();
  const go = async (url: string, form?: Record<string, string>): Promise<Response> => {
    const response = await fetch(url, {
      redirect: 'manual',
      headers: {
        ...(cookies.size ? { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') } : {}),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(form ? { method: 'POST', body: new URLSearchParams(form).toString() } : {}),
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const separator = pair!.indexOf('=');
      cookies.set(pair!.slice(0, separator).trim(), pair!.slice(separator + 1).trim());
    }
    return response;
  };
  const codes: PreparedCode[] = [];
  while (codes.length < input.count) {
    const { verifier, challenge } = pkce();
    const query = new URLSearchParams({
      client_id: input.clientId,
      response_type: 'code',
      redirect_uri: input.redirectUri,
      scope: input.scope,
      state: `s${codes.length}`,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    let response = await go(`${input.issuer}/authorize?${query}`);
    for (let step = 0; ; step++) {
      const location = response.headers.get('location');
      if (!location || step > 4) throw new Error(`the code flow stopped at ${response.status}: ${(await response.text()).slice(0, 300)}`);
      const next = new URL(location, input.issuer);
      if (next.href.startsWith(input.redirectUri)) {
        const code = next.searchParams.get('code');
        if (!code) throw new Error(`no code in ${next.href}`);
        codes.push({ code, verifier, redirectUri: input.redirectUri });
        break;
      }
      const page = await (await go(next.href)).text();
      const fields: Record<string, string> = next.pathname.endsWith('/login') ? { username: input.username, password: input.password } : { decision: 'allow' };
      response = await go(next.href, { ...hiddenInputs(page), ...fields });
    }
  }
  return codes;
}

/** Exchanges codes for tokens at once (before any fault), for refresh token chains. */
export async function exchangeCodes(tokenUrl: string, authorization: string, codes: PreparedCode[]): Promise<IssuedToken[]> {
  const issued: IssuedToken[] = [];
  for (const code of codes) {
    const answer = await timedPost('authorization_code', tokenUrl, {
      grant_type: 'authorization_code',
      code: code.code,
      code_verifier: code.verifier,
      redirect_uri: code.redirectUri,
    }, { authorization });
    if (answer.status !== 200) throw new Error(`code exchange: ${answer.status} ${JSON.stringify(answer.json)}`);
    issued.push(...issuedFrom(answer));
  }
  return issued;
}

// ---------------------------------------------------------------------------------------------
// What the load leaves behind.

/**
 * Introspects each token (as the client that holds it, at most `concurrency` at a time) and
 * returns those that are not active.
 */
export async function inactiveTokens(
  introspectUrl: string,
  authorization: string,
  tokens: readonly IssuedToken[],
  concurrency = 8,
): Promise<Array<IssuedToken & { answer: string }>> {
  const inactive: Array<IssuedToken & { answer: string }> = [];
  const queue = [...tokens];
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let token = queue.shift(); token; token = queue.shift()) {
        const answer = await timedPost('introspect', introspectUrl, { token: token.token }, { authorization });
        if (answer.status !== 200 || answer.json?.active !== true) {
          inactive.push({ ...token, answer: `${answer.status} ${JSON.stringify(answer.json) ?? answer.error}` });
        }
      }
    }),
  );
  return inactive;
}

/**
 * Grants that an issuance left half-written, as SQL over the realmgate schema (each issuance
 * is one transaction: it happened whole or not at all). `clientId`: a client whose user
 * grants get refresh tokens.
 */
export const HALF_WRITTEN_GRANT_CHECKS = {
  /** A code marked used, and nothing of its grant written (the exchange answered nothing, or 503). */
  'used codes without tokens': `
    SELECT count(*)::int AS n FROM authorization_codes c
     WHERE c.client_id = $1 AND c.used_at IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM tokens t WHERE t.grant_id = c.grant_id)`,
  /** A grant whose every refresh token was rotated: the last rotation wrote no successor. */
  'rotated refresh tokens without a successor': `
    SELECT count(*)::int AS n FROM (
      SELECT grant_id FROM tokens WHERE client_id = $1 AND kind = 'refresh_token'
       GROUP BY grant_id HAVING bool_and(used_at IS NOT NULL)) g`,
  /** A person's grant holding an access token but no refresh token, though the client gets them. */
  'access tokens without their refresh token': `
    SELECT count(*)::int AS n FROM (
      SELECT grant_id FROM tokens WHERE client_id = $1 AND user_id IS NOT NULL
       GROUP BY grant_id HAVING bool_or(kind = 'access_token') AND NOT bool_or(kind = 'refresh_token')) g`,
  /** A rotation that answered without its access token, or the reverse: refresh tokens outnumber access tokens. */
  'refresh tokens without their access token': `
    SELECT count(*)::int AS n FROM (
      SELECT grant_id FROM tokens WHERE client_id = $1 AND user_id IS NOT NULL
       GROUP BY grant_id HAVING count(*) FILTER (WHERE kind = 'refresh_token') > count(*) FILTER (WHERE kind = 'access_token')) g`,
} as const;

export async function halfWrittenGrants(
  query: (sql: string, params: unknown[]) => Promise<{ rows: Array<{ n: number }> }>,
  clientId: string,
): Promise<Record<keyof typeof HALF_WRITTEN_GRANT_CHECKS, number>> {
  const counts = {} as Record<keyof typeof HALF_WRITTEN_GRANT_CHECKS, number>;
  for (const [name, sql] of Object.entries(HALF_WRITTEN_GRANT_CHECKS) as Array<[keyof typeof HALF_WRITTEN_GRANT_CHECKS, string]>) {
    counts[name] = (await query(sql, [clientId])).rows[0]!.n;
  }
  return counts;
}

// ---------------------------------------------------------------------------------------------
// Figures, one line each, for the CI log.

export function figure(test: string, name: string, value: string | number): void {
  console.log(`[figures] ${test}: ${name}: ${value}`);
}
