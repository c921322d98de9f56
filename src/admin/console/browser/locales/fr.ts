/** The console's words in French, by their English text (i18n.ts). */
export const fr: Readonly<Record<string, string>> = {
};
