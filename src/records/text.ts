/**
 * The texts of one language. Declared here, at the ground floor, so that the rooms that choose a
 * text (a sign-in node, a self-service step) need not import the catalogues: the catalogues'
 * module (`pages/i18n/messages.ts`) fills this interface with every key of the English catalogue.
 */
export interface Messages {}

/**
 * A text that the room deciding it (a sign-in node, an account section) leaves to the page to
 * word in the page's language: `(t) => t.signIn.wrongCode`.
 */
export type Text = (t: Messages) => string;
