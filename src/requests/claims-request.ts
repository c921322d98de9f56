import { OAuthError } from '../errors.js';

import { CLAIM_DESTINATIONS, type AskedClaims, type ClaimAsk, type ClaimDestination, type ClaimsRequest } from '../records/claims-parameter.js';

const MAX_CLAIMS_PER_DESTINATION = 64;
const CLAIM_NAME = /^[\x21-\x7e]{1,128}$/;

const invalid = (reason: string): OAuthError => new OAuthError('invalid_request', `the claims parameter is malformed: ${reason}`);

/**
 * OpenID Connect Core §5.5: the `claims` parameter, a JSON object whose `userinfo` and
 * `id_token` members each map claim names to `null` or `{essential, value, values}`. Other
 * members are ignored (§5.5: a server may ignore what it does not serve); anything malformed
 * is `invalid_request`.
 */
export function parseClaimsRequest(value: string | undefined): ClaimsRequest | undefined {
  if (value === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw invalid('it is not JSON');
  }
  if (!isPlainObject(parsed)) throw invalid('it must be a JSON object');
  const request: Partial<Record<ClaimDestination, Record<string, ClaimAsk | null>>> = {};
  for (const destination of CLAIM_DESTINATIONS) {
    const asked = parsed[destination];
    if (asked === undefined || asked === null) continue;
    if (!isPlainObject(asked)) throw invalid(`${destination} must be an object`);
    const names = Object.keys(asked);
    if (names.length > MAX_CLAIMS_PER_DESTINATION) throw invalid(`${destination} asks for too many claims`);
    const claims = names.map((name): [string, ClaimAsk | null] => {
      if (!CLAIM_NAME.test(name)) throw invalid(`${destination} holds a malformed claim name`);
      return [name, claimAsk(asked[name], `${destination}.${name}`)];
    });
    // fromEntries defines each as its own property: a claim named `__proto__` is only a name.
    if (names.length > 0) request[destination] = Object.fromEntries(claims);
  }
  return Object.keys(request).length === 0 ? undefined : request;
}

function claimAsk(ask: unknown, where: string): ClaimAsk | null {
  if (ask === null) return null;
  if (!isPlainObject(ask)) throw invalid(`${where} must be null or an object`);
  // §5.5.1: members other than these three may be defined later, and are ignored.
  const { essential, value, values } = ask;
  if (essential !== undefined && typeof essential !== 'boolean') throw invalid(`${where}.essential must be true or false`);
  if (values !== undefined && (!Array.isArray(values) || values.length === 0)) throw invalid(`${where}.values must be a non-empty array`);
  if (value !== undefined && values !== undefined) throw invalid(`${where} cannot hold both value and values`);
  return {
    ...(essential === undefined ? {} : { essential }),
    ...(value === undefined ? {} : { value }),
    ...(values === undefined ? {} : { values: values as unknown[] }),
  };
}

/**
 * OpenID Connect Core §5.5.1.1: the acr values asked as essential in the ID token (`value` or
 * `values`, strings only); undefined when acr is not essential.
 */
export function essentialAcrValues(request: ClaimsRequest | undefined): string[] | undefined {
  const acr = request?.id_token?.acr;
  if (!acr?.essential) return undefined;
  const values = acr.values ?? (acr.value === undefined ? [] : [acr.value]);
  const strings = values.filter((value): value is string => typeof value === 'string' && value !== '');
  return strings.length === 0 ? undefined : strings.slice(0, 20);
}

/**
 * OpenID Connect Core §3.1.2.2: whether a person may be the answer to a request: any, unless
 * the ID token is asked to have a `sub` value, which must then be theirs.
 */
export function answersAskedSubject(request: ClaimsRequest | undefined, sub: string): boolean {
  const asked = request?.id_token?.sub;
  return asked?.value === undefined || asked.value === sub;
}

/** The names a grant keeps of a request (AskedClaims); undefined when it asked for none. */
export function askedClaimsOf(request: ClaimsRequest | undefined): AskedClaims | undefined {
  if (request === undefined) return undefined;
  const asked: Partial<Record<ClaimDestination, string[]>> = {};
  for (const destination of CLAIM_DESTINATIONS) {
    const names = Object.keys(request[destination] ?? {});
    if (names.length > 0) asked[destination] = names;
  }
  return Object.keys(asked).length === 0 ? undefined : asked;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
