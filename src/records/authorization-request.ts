import type { AuthorizationDetail } from './authorization-details.js';
import type { ClaimsRequest } from './claims-parameter.js';
/**
 * OIDC Core §3.1.2.1 values this server acts on; `select_account` is served as `login`.
 * `create`: Initiating User Registration via OpenID Connect 1.0 §4.1, the sign-in begins on the registration page.
 */
export type Prompt = 'none' | 'login' | 'consent' | 'create';

/**
 * How the response goes back (OAuth 2.0 Multiple Response Types §2.1, Form Post Response Mode,
 * JARM §2.3): `jwt` of a code request is `query.jwt`. Fragments carry nothing of a code flow.
 */
export type ResponseMode = 'query' | 'form_post' | 'query.jwt' | 'form_post.jwt';

/** A validated authorization request (RFC 6749 §4.1.1, RFC 7636 §4.3, OIDC Core §3.1.2.1). */
export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  /** Whether the request named the redirect URI: then the token request must repeat it (RFC 6749 §4.1.3). */
  redirectUriGiven: boolean;
  scope: string[];
  state?: string;
  nonce?: string;
  /** S256 only. */
  codeChallenge?: string;
  /** RFC 9449 §10: the thumbprint of the DPoP key the code is bound to (`dpop_jkt`, or the key of a DPoP proof at PAR). */
  dpopJkt?: string;
  prompt: Prompt[];
  maxAge?: number;
  loginHint?: string;
  /** OIDC Core §3.1.2.1, in order of preference: the realm's `acr_journeys` picks the journey (CONTRACT.md §8). */
  acrValues?: string[];
  /** OIDC Core §3.1.2.1 `ui_locales`, in order of preference: the language of the sign-in's pages (CONTRACT.md §10). */
  uiLocales?: string[];
  /** RFC 8707 §2.1 `resource`, each once: where the grant's access tokens are meant to be used. */
  resource?: string[];
  /** `response_mode`, when not the default `query`. */
  responseMode?: Exclude<ResponseMode, 'query'>;
  /** OIDC Core §5.5 `claims`: individual claims asked for the ID token and UserInfo. */
  claims?: ClaimsRequest;
  /** RFC 9396 `authorization_details`: each entry of a type of the realm that the client may use, checked by its schema. */
  authorizationDetails?: readonly AuthorizationDetail[];
}
