/** The console's words in German, by their English text (i18n.ts). */
export const de: Readonly<Record<string, string>> = {
};
