import { z } from 'zod';
import { SUPPORTED_LOCALES, isLocale } from './locales.js';

/**
 * A client's name in other languages (OpenID Connect Registration §2.1's `client_name#de`, in the
 * shape of a scope's `descriptions`, CONTRACT.md §16): the pages show the person's, else `client_name`.
 */
export const clientNames = z
  .record(
    z.string().refine(isLocale, { error: () => `must be one of ${SUPPORTED_LOCALES.join(', ')}` }),
    z.string().min(1).max(200).regex(/^[^\p{Cc}]+$/u, 'must hold no control characters'),
  )
  .describe('Its name by language, e.g. {"de": "Rechnungen"}; the sign-in and consent pages show the person\'s, else `client_name`');

/** The name a page gives a client in `locale`: its name in that language, else its `client_name`, else its id. */
export function clientNameIn(
  client: { readonly client_id: string; readonly client_name: string; readonly client_names?: Readonly<Record<string, string>> | undefined },
  locale: string | undefined,
): string {
  return (locale === undefined ? undefined : client.client_names?.[locale]) || client.client_name || client.client_id;
}
