#!/usr/bin/env node
/**
 * The `realmgate` command. Exit codes: 0 done; 1 the server or the database refused or could
 * not be reached (one line on stderr says why); 2 the command line is wrong.
 */
import { CommanderError } from 'commander';
import { CliError } from './errors.js';
import { printable } from './output.js';
import { buildProgram } from './program.js';

/**
 * An unknown "option" that is no option's name (`-98m7ItHc`) is most likely a value, a token
 * say, that begins with a dash; `--bogus` or `-x` is a mistyped option, which Commander's own
 * message and its pointer to --help cover.
 */
function looksLikeValue(error: CommanderError): boolean {
  const given = /'([^']*)'/.exec(error.message)?.[1] ?? '';
  return !/^(--[a-z][a-z0-9-]*(=.*)?|-[a-zA-Z])$/.test(given);
}

function exitCodeOf(error: unknown): number {
  // Commander has printed its message (or the help) already.
  if (error instanceof CommanderError) {
    if (error.code === 'commander.unknownOption' && looksLikeValue(error)) {
      process.stderr.write('realmgate: an argument that starts with - (a token, say) goes after --, as in: realmgate token introspect <realm> -- <token>\n');
    }
    return error.exitCode === 0 ? 0 : 2;
  }
  if (error instanceof CliError) {
    process.stderr.write(`realmgate: ${error.message}\n`);
    return error.exitCode;
  }
  process.stderr.write(`realmgate: unexpected failure: ${printable((error as Error)?.message ?? String(error))}\n`);
  return 1;
}

try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  process.exitCode = exitCodeOf(error);
}
