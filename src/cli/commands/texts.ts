import type { Command } from 'commander';
import { messagesIn } from '../../pages/i18n/index.js';
import { templateOf, writableKeys } from '../../pages/i18n/text-keys.js';
import { type Locale, SUPPORTED_LOCALES, isLocale } from '../../records/locales.js';
import { UsageError } from '../errors.js';
import { fields, printLines, printable, table } from '../output.js';
import { print } from '../output-mode.js';
import { AdminApi, type ConnectionOptions, adminPath, connectionOptions } from '../server.js';
import { readJson } from './input.js';

type Texts = Record<string, string>;

interface PutOptions extends ConnectionOptions {
  file?: string;
}

const localeArgument = (locale: string): Locale => {
  if (!isLocale(locale)) throw new UsageError(`the language must be one of ${SUPPORTED_LOCALES.join(', ')}`);
  return locale;
};

/** `key=text` arguments as texts; a text may hold `=`. */
function pairs(args: readonly string[]): Texts {
  const texts: Texts = {};
  for (const arg of args) {
    const at = arg.indexOf('=');
    if (at <= 0) throw new UsageError(`${printable(arg)} is not key=text`);
    texts[arg.slice(0, at)] = arg.slice(at + 1);
  }
  return texts;
}

const textsView = (texts: Texts): string => (Object.keys(texts).length === 0 ? 'No texts of its own: the shipped ones are shown.' : fields(Object.entries(texts)));

/** `realmgate texts keys|show|put|set|delete`: a realm's own words for its pages and mails (CONTRACT.md §16). */
export function addTextCommands(program: Command): void {
  const texts = program.command('texts').description("a realm's own words for its pages and mails, per language");

  texts
    .command('keys')
    .description('the texts that may be worded anew, with their shipped words ({0}, {1}… stand for what the page fills in; a count is worded per plural category: key#one, key#other…)')
    .argument('[locale]', `the language of the shipped words (${SUPPORTED_LOCALES.join(', ')})`, 'en')
    .option('--json', 'print JSON: the texts by key')
    .action((locale: string, options: { json?: boolean }) => {
      const language = localeArgument(locale);
      const messages = messagesIn(language);
      const shipped = Object.fromEntries(writableKeys(language).map((key) => [key, templateOf(messages, key) ?? '']));
      print(options, shipped, (answer) => table<[string, string]>([['key', ([key]) => key], ['text', ([, text]) => text]], Object.entries(answer)));
    });

  connectionOptions(texts.command('show').alias('get').description("the realm's own texts in a language").argument('<realm>').argument('<locale>')).action(
    async (realm: string, locale: string, options: ConnectionOptions) => {
      print(options, (await AdminApi.from(options).get(adminPath('realms', realm, 'texts', localeArgument(locale)))) as Texts, textsView);
    },
  );

  connectionOptions(
    texts
      .command('put')
      .description("replace the realm's own texts in a language with those given (a JSON file and/or key=text arguments)")
      .argument('<realm>')
      .argument('<locale>')
      .argument('[key=text...]', 'a text and its words, e.g. "signIn.username=Kundennummer"')
      .option('--file <file>', 'a JSON object of texts by key, or - to read it from standard input'),
  ).action(async (realm: string, locale: string, args: string[], options: PutOptions) => {
    const fromFile = options.file === undefined ? {} : await readJson(options.file);
    if (fromFile === null || typeof fromFile !== 'object' || Array.isArray(fromFile)) throw new UsageError('the file must hold a JSON object of texts by key');
    const body = { ...(fromFile as Texts), ...pairs(args) };
    print(options, (await AdminApi.from(options).put(adminPath('realms', realm, 'texts', localeArgument(locale)), body)) as Texts, textsView);
  });

  connectionOptions(
    texts.command('set').description("change some of the realm's own texts in a language, keeping the others").argument('<realm>').argument('<locale>').argument('<key=text...>'),
  ).action(async (realm: string, locale: string, args: string[], options: ConnectionOptions) => {
    const api = AdminApi.from(options);
    const path = adminPath('realms', realm, 'texts', localeArgument(locale));
    const current = (await api.get(path)) as Texts;
    print(options, (await api.put(path, { ...current, ...pairs(args) })) as Texts, textsView);
  });

  connectionOptions(texts.command('delete').description('return to the shipped texts in a language').argument('<realm>').argument('<locale>')).action(
    async (realm: string, locale: string, options: ConnectionOptions) => {
      await AdminApi.from(options).delete(adminPath('realms', realm, 'texts', localeArgument(locale)));
      if (!options.json) printLines(`${printable(realm)} shows the shipped texts in ${locale} again.`);
    },
  );
}
