/**
 * A realm's own words for its pages and mails (CONTRACT.md §16): by language, the catalogue's
 * dotted keys an admin worded anew and their texts (src/pages/i18n/text-keys.ts).
 */
export type RealmTexts = Readonly<Record<string, Readonly<Record<string, string>>>>;
