/** The view models of the sign-in nodes: what src/authn/nodes/ hands src/pages/sign-in/ to render. */

/** What a registration form shows again: what was typed, never the password. */
export interface RegistrationKept {
  readonly username: string;
  readonly email: string;
  readonly given_name: string;
  readonly family_name: string;
}

/** What a node of a journey shows (src/authn/nodes/ builds these; nothing here decides). */
export type SignInView =
  /** `register`, `reset`: the links to `{issuer}/register` and `{issuer}/reset` when the realm offers them (CONTRACT.md §9). */
  | { readonly kind: 'password'; readonly username: string; readonly register?: string; readonly reset?: string }
  | { readonly kind: 'otp' }
  | { readonly kind: 'otp_enrolment'; readonly otpauthUri: string; readonly secretBase32: string }
  /** `passwordless`: no one known yet; `second_factor`: the known person's passkey; `register`: they have none. */
  | { readonly kind: 'passkey'; readonly mode: 'passwordless' | 'second_factor' | 'register'; readonly options: unknown; readonly offerUnavailable: boolean }
  /** `labels`: the journey's own words for its options, as an admin wrote them. */
  | { readonly kind: 'choice'; readonly labels: readonly string[] }
  /** An `identity_provider` node: sign-in at that upstream provider (CONTRACT.md §10). */
  | { readonly kind: 'identity_provider'; readonly provider: ProviderButtonView }
  /** A `register` node: the registration form, with what was typed (CONTRACT.md §9). */
  | { readonly kind: 'register'; readonly kept: RegistrationKept }
  /** An `email_verification` node: check the mail, or have it sent again. */
  | { readonly kind: 'email_verification' }
  /** Before a first second factor is enrolled: the code mailed to the verified address (src/authn/enrolment-code.ts), and what became of the mail. */
  | { readonly kind: 'enrolment_code'; readonly mailed: 'sent' | 'limited' | 'failed' | 'spent' };

/** A provider's button: `button[name=provider][value=<alias>]` (CONTRACT.md §10). */
export interface ProviderButtonView {
  readonly alias: string;
  readonly name: string;
}
