import { clientNames } from '../records/client-names.js';
import { SHIPPED_LOCALES, isLocale } from '../records/locales.js';

/** OpenID Connect Registration §2.1: a human-readable member in one language is `name#tag`. */
const NAME_IN_LANGUAGE = /^client_name#(.*)$/s;
/** At most this many `client_name#…` members: one a language, with room for a tag written twice. */
const MAX_NAMED_LANGUAGES = 20;

/**
 * The `client_name#de` members of a registration or an update, as the `client_names` an admin
 * sets (src/records/client-names.ts): each a name of 1 to 200 characters without control
 * characters, kept when the server speaks its language (the tag in any case), left out otherwise. `names` is undefined when the body
 * has no such member (a null one, RFC 7592 §2.2, being none); `problems` names each refusal.
 */
export function registeredNames(body: Record<string, unknown>): { names: Record<string, string> | undefined; problems: string[] } {
  const members = Object.entries(body).flatMap(([field, value]) => {
    const tag = NAME_IN_LANGUAGE.exec(field)?.[1];
    return tag === undefined || value === null ? [] : [{ field, tag: tag.toLowerCase(), value }];
  });
  if (members.length === 0) return { names: undefined, problems: [] };
  if (members.length > MAX_NAMED_LANGUAGES) return { names: undefined, problems: [`client_name#…: at most ${MAX_NAMED_LANGUAGES} languages`] };
  const problems: string[] = [];
  const names: Record<string, string> = {};
  for (const { field, tag, value } of members) {
    const shown = JSON.stringify(field.slice(0, 40));
    if (Object.hasOwn(names, tag)) {
      problems.push(`${shown}: the language is named twice`);
      continue;
    }
    // Checked as a name in any case; kept only in a language the server speaks (§2.1: the OP
    // uses the versions it has), so that a client naming itself in many languages still registers.
    const parsed = clientNames.safeParse({ [SHIPPED_LOCALES[0]]: value });
    if (!parsed.success) {
      problems.push(`${shown}: ${parsed.error.issues.map((issue) => issue.message).join(', ')}`);
      continue;
    }
    if (isLocale(tag)) names[tag] = parsed.data[SHIPPED_LOCALES[0]]!;
  }
  return { names, problems };
}

/** The client's names in other languages under their registration names (`client_name#de`), as registration answers them. */
export function registrationNamesView(names: Readonly<Record<string, string>> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(names ?? {}).map(([tag, name]) => [`client_name#${tag}`, name]));
}
