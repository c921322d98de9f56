import type { Store } from '../../store/index.js';
import type { KeyEncryption } from '../../tokens/key-encryption.js';
import type { NodeRunner } from './node.js';
import { otpNode } from './otp.js';
import { type PasskeyNodeRunner, passkeyNode } from './passkey.js';
import { passwordNode } from './password.js';

/** What the nodes need: the store, and the key that encrypts one-time code secrets at rest. */
export interface SignInNodeDeps {
  store: Pick<Store, 'users' | 'oneTimeCodes' | 'passkeys' | 'webauthnChallenges'>;
  encryption: KeyEncryption;
  /** The web origin of the server (BASE_URL's), which passkeys are bound to. */
  baseUrl: string;
}

/** The nodes of the person's that the sign-in page runs, by type. */
export interface SignInNodes {
  readonly password: NodeRunner;
  readonly otp: NodeRunner;
  readonly passkey: PasskeyNodeRunner;
}

export function signInNodes(deps: SignInNodeDeps): SignInNodes {
  return { password: passwordNode(deps.store.users), otp: otpNode(deps), passkey: passkeyNode(deps) };
}
