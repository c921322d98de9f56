import type { Store } from '../../store/index.js';
import type { KeyEncryption } from '../../tokens/key-encryption.js';
import type { SignInStep } from '../steps.js';
import { otpStep } from './otp.js';
import { passkeyStep } from './passkey.js';
import { passwordStep } from './password.js';

/** What the steps need: the store, and the key that encrypts one-time code secrets at rest. */
export interface SignInStepDeps {
  store: Store;
  encryption: KeyEncryption;
  /** The web origin of the server (BASE_URL's), which passkeys are bound to. */
  baseUrl: string;
}

/** Every sign-in step this server runs (the realm's `authentication` setting picks and orders them). */
export function signInSteps(deps: SignInStepDeps): SignInStep[] {
  return [passwordStep(deps.store.users), otpStep(deps), passkeyStep(deps)];
}
