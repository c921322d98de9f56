import type { en } from './en.js';

/**
 * The texts of one language: every key of the English catalogue, with the same parameters. A
 * catalogue declared as `Messages` that misses a key, or adds one, does not compile.
 */
export type Messages = typeof en;

/**
 * A text that the room deciding it (a sign-in node, an account section) leaves to the page to
 * word in the page's language: `(t) => t.signIn.wrongCode`.
 */
export type Text = (t: Messages) => string;
