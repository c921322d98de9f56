/**
 * A reader for the Dockerfile's instructions: enough of its syntax for this project's file
 * (line continuations, comments, exec and shell forms, ENV pairs), refusing what it does not know.
 */

export interface Instruction {
  /** Upper case: FROM, RUN, COPY, ENV… */
  keyword: string;
  /** Everything after the keyword, continuation lines joined. */
  args: string;
  line: number;
}

export interface Stage {
  from: string;
  name: string | undefined;
  instructions: Instruction[];
}

export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const first = i + 1;
    let logical = lines[i]!;
    if (/^\s*(#|$)/.test(logical)) continue;
    while (/\\\s*$/.test(logical)) {
      logical = logical.replace(/\\\s*$/, ' ');
      i++;
      if (i >= lines.length) throw new Error(`Dockerfile:${first}: a continuation at the end of the file`);
      // A comment line inside a continued instruction is dropped, as Docker does.
      if (/^\s*#/.test(lines[i]!)) logical += '\\';
      else logical += lines[i]!;
    }
    const match = /^\s*([A-Za-z]+)\s+(.*)$/.exec(logical);
    if (!match) throw new Error(`Dockerfile:${first}: cannot read "${logical}"`);
    const instruction = { keyword: match[1]!.toUpperCase(), args: match[2]!.trim().replace(/\s+/g, ' '), line: first };
    if (instruction.keyword === 'FROM') {
      const [from, as, name] = instruction.args.split(' ');
      stages.push({ from: from!, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
    } else {
      const stage = stages.at(-1);
      if (!stage) throw new Error(`Dockerfile:${first}: ${instruction.keyword} before any FROM`);
      stage.instructions.push(instruction);
    }
  }
  return stages;
}

export const instructionsOf = (stage: Stage, keyword: string): Instruction[] => stage.instructions.filter((i) => i.keyword === keyword);

/** The exec form (`["node", "dist/server.js"]`) as its words; the shell form as `/bin/sh -c` would get it. */
export function commandWords(args: string): { exec: boolean; words: string[] } {
  if (args.startsWith('[')) {
    const words = JSON.parse(args) as unknown;
    if (!Array.isArray(words) || !words.every((word) => typeof word === 'string')) throw new Error(`not an exec form: ${args}`);
    return { exec: true, words };
  }
  return { exec: false, words: ['/bin/sh', '-c', args] };
}

/** `ENV A=1 B="two words"` (the legacy `ENV A 1` form is refused). */
export function envPairs(args: string): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  const pattern = /([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|'[^']*'|\S*)\s*/y;
  let rest = args;
  while (rest.length > 0) {
    pattern.lastIndex = 0;
    const match = pattern.exec(rest);
    if (!match) throw new Error(`ENV: cannot read "${rest}"`);
    const raw = match[2]!;
    const value = raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw.startsWith("'") ? raw.slice(1, -1) : raw;
    pairs.push([match[1]!, value]);
    rest = rest.slice(match[0].length);
  }
  return pairs;
}

/** COPY's sources, destination and flags (`--from=build`, `--chown=…`). */
export function copyParts(args: string): { flags: Record<string, string>; sources: string[]; destination: string } {
  const words = args.startsWith('[') ? commandWords(args).words : args.split(' ');
  const flags: Record<string, string> = {};
  while (words[0]?.startsWith('--')) {
    const [name, value = ''] = words.shift()!.slice(2).split('=');
    flags[name!] = value;
  }
  const destination = words.pop();
  if (!destination || words.length === 0) throw new Error(`COPY: cannot read "${args}"`);
  return { flags, sources: words, destination };
}
