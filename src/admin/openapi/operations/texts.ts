import { DELETED, type Operation } from '../operation.js';

/** A realm's own words for its pages and mails (CONTRACT.md §16). */
export const textOperations: readonly Operation[] = [
  {
    method: 'GET', path: '/admin/realms/:realm/texts/:locale', operationId: 'getTexts', tag: 'Texts', summary: 'Read the realm\'s own texts in a language',
    responses: { 200: { description: 'The texts the realm words anew in this language, by key; `{}` when none', schema: 'Texts' } },
  },
  {
    method: 'GET', path: '/admin/realms/:realm/texts/:locale/catalogue', operationId: 'getTextCatalogue', tag: 'Texts', summary: 'Read every text a realm may word anew in a language',
    description:
      'The keys a realm may store in this language, each with the words the server ships (or reads from `LOCALES_DIR`) for it, as an override writes them, ' +
      'and how many placeholders it keeps. A text with a count is listed once per plural category of the language (`account.recoveryCodes.left#one`, `…#other`). ' +
      'The same for every realm; read with the permission to read the realm\'s texts.',
    responses: { 200: { description: 'The catalogue in this language', schema: 'TextCatalogue' } },
  },
  {
    method: 'PUT', path: '/admin/realms/:realm/texts/:locale', operationId: 'putTexts', tag: 'Texts', summary: 'Word the realm\'s pages and mails anew in a language',
    description:
      'Replaces the realm\'s own texts in this language. Each key is a text of the pages or mails, by its place in the catalogue (`signIn.titles.password`, ' +
      '`mail.passwordReset.subject`; `realmgate texts keys` lists them with their English text). A text is plain words: it is escaped on pages. ' +
      'Where the original has parameters (the realm\'s or the application\'s name…), the text keeps each of its placeholders `{0}`, `{1}`… ' +
      'A text with a count is worded per plural category of the language, as CLDR names them (`<key>#one`, `<key>#other`…, `{0}` the number; the plain key is one text for every count); ' +
      'one with a length of time once, `{0}` the length in words. A category the language does not have is 400. ' +
      'An unknown key, a lost or an added placeholder, an empty text or one over 2000 characters is 400 and changes nothing. ' +
      'Every instance shows the new texts from the next page on.',
    body: { schema: 'Texts', example: { 'signIn.titles.password': 'Willkommen zurück', 'mail.passwordReset.subject': 'Neues Passwort für {0}' } },
    responses: { 200: { description: 'The realm\'s texts in this language, as stored', schema: 'Texts' } },
  },
  {
    method: 'DELETE', path: '/admin/realms/:realm/texts/:locale', operationId: 'deleteTexts', tag: 'Texts', summary: 'Return to the shipped texts in a language',
    description: 'The pages and mails speak the shipped catalogue\'s words again in this language; 404 when the realm has none of its own in it.',
    responses: DELETED,
  },
];
