import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { OAuthError } from '../errors.js';
import { pluralCategories, splitCountedKey } from '../pages/i18n/counted-texts.js';
import { messagesIn } from '../pages/i18n/index.js';
import { TEXT_KEYS, templateOf, textRefusal, writableKeys } from '../pages/i18n/text-keys.js';
import { SUPPORTED_LOCALES, isLocale } from '../records/locales.js';
import type { AdminDeps } from './deps.js';
import { notFound, parseInput } from './validate.js';

type Params = { Params: { realm: string; locale: string } };

export const MAX_TEXT_LENGTH = 2000;

export const TextsPathSchema = z.strictObject({
  locale: z.string().refine(isLocale, { error: () => `must be one of ${SUPPORTED_LOCALES.join(', ')}` }),
});

// Line breaks are words' (a mail's paragraphs); other control characters are no one's.
const WORDS = /^(?:[^\p{Cc}]|[\n\t])*$/u;

export const TextsPutSchema = z
  .record(
    z.string().describe('A text\'s key in the catalogue, e.g. `signIn.titles.password`; for a text with a count, `<key>#<plural category>`, e.g. `account.recoveryCodes.left#one`'),
    z
      .string()
      .min(1, 'must not be empty')
      .max(MAX_TEXT_LENGTH, `must be at most ${MAX_TEXT_LENGTH} characters`)
      .regex(WORDS, 'must not hold control characters other than line breaks and tabs')
      .describe('The text, plain (it is escaped on pages); `{0}`, `{1}`… where the original has parameters (a count\'s number, a length of time in words)'),
  )
  .describe('The realm\'s own words in this language, by key: they replace what it had in this language');

export const TextCatalogueResponse = z
  .strictObject({
    locale: z.string().describe('The language'),
    plural_categories: z.array(z.string()).describe('The plural categories of the language, as CLDR names them: a text with a count is worded once per category'),
    texts: z
      .array(
        z.strictObject({
          key: z.string().describe('What a realm stores the text under: the text\'s key, and `#<category>` for a count'),
          text: z.string().describe('The catalogue\'s words in this language, as a realm writes them (`{0}`, `{1}`… for what the page fills in)'),
          placeholders: z.number().int().min(0).describe('How many placeholders the text keeps: `{0}` to `{placeholders - 1}`'),
          number: z.enum(['count', 'duration']).optional().describe('For a text with a number: `{0}` is the number (`count`) or a length of time in words (`duration`)'),
        }),
      )
      .describe('Every text a realm may word anew, in the catalogue\'s order'),
  })
  .describe('The texts of the pages and mails in a language, as the server ships or reads them, without the realm\'s own');

/** What `GET …/texts/{locale}/catalogue` answers: every text a realm may word anew in `locale`, with the catalogue's words. */
function catalogueOf(locale: string): z.infer<typeof TextCatalogueResponse> {
  const messages = messagesIn(locale);
  const texts = writableKeys(locale).flatMap((key) => {
    const text = templateOf(messages, key);
    const known = TEXT_KEYS.get(splitCountedKey(key).key);
    if (text === undefined || !known) return [];
    return [{ key, text, placeholders: known.placeholders, ...(known.number ? { number: known.number.kind } : {}) }];
  });
  return { locale, plural_categories: [...pluralCategories(locale)], texts };
}

/** The stored texts of `locale`, each checked against the catalogue: an unknown key, a plural category the language lacks or a lost placeholder refuses them all. */
export function checkedTexts(input: unknown, locale: string, where = 'body'): Record<string, string> {
  const texts = parseInput(TextsPutSchema, input);
  const problems = Object.entries(texts)
    .map(([key, text]) => [key, textRefusal(key, text, locale)] as const)
    .filter((entry): entry is readonly [string, string] => entry[1] !== undefined)
    .slice(0, 5)
    .map(([key, refusal]) => `${where}.${key}: ${refusal}`);
  if (problems.length > 0) throw new OAuthError('invalid_request', problems.join('; '));
  return Object.fromEntries(Object.entries(texts).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/**
 * `/admin/realms/{realm}/texts/{locale}` (CONTRACT.md §16): a realm's own words for its pages
 * and mails in one language, by the catalogue's keys (src/pages/i18n/text-keys.ts). They ride
 * with the realm's row, so every instance reads them as it reads the realm.
 */
export function textRoutes({ store }: AdminDeps): FastifyPluginAsync {
  return async (app) => {
    app.get<Params>('/texts/:locale', async (request) => {
      const { locale } = parseInput(TextsPathSchema, { locale: request.params.locale });
      return request.realm.texts?.[locale] ?? {};
    });

    app.get<Params>('/texts/:locale/catalogue', async (request) => {
      const { locale } = parseInput(TextsPathSchema, { locale: request.params.locale });
      return catalogueOf(locale);
    });

    app.put<Params>('/texts/:locale', async (request) => {
      const { locale } = parseInput(TextsPathSchema, { locale: request.params.locale });
      const texts = checkedTexts(request.body, locale);
      const realm = await store.realms.putTexts(request.realm.name, locale, texts);
      if (!realm) throw notFound('realm');
      return realm.texts[locale] ?? {};
    });

    app.delete<Params>('/texts/:locale', async (request, reply) => {
      const { locale } = parseInput(TextsPathSchema, { locale: request.params.locale });
      if (request.realm.texts?.[locale] === undefined) throw notFound('texts of that language');
      if (!(await store.realms.putTexts(request.realm.name, locale, undefined))) throw notFound('realm');
      return reply.code(204).send();
    });
  };
}
