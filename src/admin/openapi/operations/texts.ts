import { DELETED, type Operation } from '../operation.js';

/** A realm's own words for its pages and mails (CONTRACT.md §16). */
export const textOperations: readonly Operation[] = [
  {
    method: 'GET', path: '/admin/realms/:realm/texts/:locale', operationId: 'getTexts', tag: 'Texts', summary: 'Read the realm\'s own texts in a language',
    responses: { 200: { description: 'The texts the realm words anew in this language, by key; `{}` when none', schema: 'Texts' } },
  },
  {
    method: 'PUT', path: '/admin/realms/:realm/texts/:locale', operationId: 'putTexts', tag: 'Texts', summary: 'Word the realm\'s pages and mails anew in a language',
    description:
      'Replaces the realm\'s own texts in this language. Each key is a text of the pages or mails, by its place in the catalogue (`signIn.titles.password`, ' +
      '`mail.passwordReset.subject`; `realmgate texts keys` lists them with their English text). A text is plain words: it is escaped on pages. ' +
      'Where the original has parameters (the realm\'s or the application\'s name…), the text keeps each of its placeholders `{0}`, `{1}`… ' +
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
