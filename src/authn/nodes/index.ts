import type { Mailer } from '../../mail/mailer.js';
import type { Store } from '../../store/index.js';
import type { KeyEncryption } from '../../tokens/key-encryption.js';
import type { NodeRunner } from './node.js';
import type { PasswordHashing } from '../password-hashing.js';
import { otpNode } from './otp.js';
import { emailVerificationNode } from './email-verification.js';
import { type PasskeyNodeRunner, passkeyNode } from './passkey.js';
import { passwordNode } from './password.js';
import { registerNode } from './register.js';

/** What the nodes need: the store, and the key that encrypts one-time code secrets at rest. */
export interface SignInNodeDeps {
  store: Pick<Store, 'users' | 'oneTimeCodes' | 'passkeys' | 'webauthnChallenges' | 'tickets' | 'mailAllowances' | 'attemptCounters'>;
  encryption: KeyEncryption;
  /** The web origin of the server (BASE_URL's), which passkeys are bound to. */
  baseUrl: string;
  /** Mails of the registration and email verification nodes; none without `SMTP_URL`. */
  mailer: Mailer | undefined;
  /** argon2id's cost for new passwords, which the dummy hash of an unknown username is made with too. */
  passwordHashing: PasswordHashing;
}

/** The nodes of the person's that the sign-in page runs, by type. */
export interface SignInNodes {
  readonly password: NodeRunner;
  readonly otp: NodeRunner;
  readonly passkey: PasskeyNodeRunner;
  readonly register: NodeRunner;
  readonly email_verification: NodeRunner;
}

export function signInNodes(deps: SignInNodeDeps): SignInNodes {
  return {
    password: passwordNode(deps.store.users, deps.passwordHashing),
    otp: otpNode(deps),
    passkey: passkeyNode(deps),
    register: registerNode(deps),
    email_verification: emailVerificationNode(deps),
  };
}

/**
 * The nodes a sign-in without pages runs (the password grant): a password, and a one-time code
 * of a confirmed app or a recovery code. Any other node of the person's needs a page.
 */
export function nodesWithoutPages(deps: {
  store: Pick<Store, 'users' | 'oneTimeCodes' | 'tickets' | 'mailAllowances'>;
  encryption: KeyEncryption;
  passwordHashing: PasswordHashing;
}): Partial<SignInNodes> {
  return {
    password: passwordNode(deps.store.users, deps.passwordHashing),
    otp: otpNode({ store: deps.store, encryption: deps.encryption, mailer: undefined }, { enrols: false }),
  };
}
