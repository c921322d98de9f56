/** The name the SAML bearer assertion's module knows the one store of spent assertion ids by. */
export type { SpentAssertionStore as UsedAssertionStore } from './spent-assertions.js';
