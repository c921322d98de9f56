/**
 * A reader for the small YAML subset of docker-compose.yml: block mappings and sequences by
 * indentation, plain and quoted scalars (all kept as text), flow sequences written as JSON
 * arrays, comments. Anything else (anchors, aliases, tags, block scalars, flow mappings,
 * tabs, several documents) is refused with its line, never guessed at.
 */

export type YamlValue = string | null | YamlValue[] | { [key: string]: YamlValue };

interface Line {
  indent: number;
  text: string;
  number: number;
}

export function parseComposeYaml(source: string): YamlValue {
  const lines: Line[] = [];
  source.split('\n').forEach((raw, i) => {
    const number = i + 1;
    if (/^\s*\t/.test(raw)) throw new YamlError(number, 'tabs for indentation');
    const text = stripComment(raw, number).trimEnd();
    if (text.trim() === '') return;
    if (/^(---|\.\.\.)(\s|$)/.test(text)) throw new YamlError(number, 'document markers');
    lines.push({ indent: text.length - text.trimStart().length, text: text.trim(), number });
  });
  if (lines.length === 0) return null;
  const reader = { lines, at: 0 };
  const value = readBlock(reader, lines[0]!.indent);
  if (reader.at < lines.length) throw new YamlError(lines[reader.at]!.number, 'unexpected indentation');
  return value;
}

export class YamlError extends Error {
  constructor(line: number, what: string) {
    super(`docker-compose.yml:${line}: not read by this reader: ${what}`);
  }
}

interface Reader {
  lines: Line[];
  at: number;
}

function readBlock(reader: Reader, indent: number): YamlValue {
  const first = reader.lines[reader.at]!;
  return first.text.startsWith('- ') || first.text === '-' ? readSequence(reader, indent) : readMapping(reader, indent);
}

function readMapping(reader: Reader, indent: number): { [key: string]: YamlValue } {
  const mapping: { [key: string]: YamlValue } = {};
  while (reader.at < reader.lines.length) {
    const line = reader.lines[reader.at]!;
    if (line.indent < indent) break;
    if (line.indent > indent) throw new YamlError(line.number, 'unexpected indentation');
    if (line.text.startsWith('-')) throw new YamlError(line.number, 'a sequence item inside a mapping');
    const match = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s'"#:][^:]*?):(?:\s+(.*))?$/.exec(line.text);
    if (!match) throw new YamlError(line.number, `"${line.text}"`);
    const key = scalar(match[1]!, line.number) as string;
    if (Object.hasOwn(mapping, key)) throw new YamlError(line.number, `the key ${key} twice`);
    reader.at++;
    mapping[key] = match[2] === undefined ? nested(reader, indent, line) : inline(match[2], line.number);
  }
  return mapping;
}

function readSequence(reader: Reader, indent: number): YamlValue[] {
  const items: YamlValue[] = [];
  while (reader.at < reader.lines.length) {
    const line = reader.lines[reader.at]!;
    if (line.indent < indent) break;
    if (line.indent > indent) throw new YamlError(line.number, 'unexpected indentation');
    if (!(line.text.startsWith('- ') || line.text === '-')) break;
    const rest = line.text.slice(1).trim();
    if (/^[^\s'"[][^:]*:(\s|$)/.test(rest)) throw new YamlError(line.number, 'a mapping inside a sequence item');
    reader.at++;
    items.push(rest === '' ? nested(reader, indent, line) : inline(rest, line.number));
  }
  return items;
}

/** The value of `key:` with nothing after it: the more indented block below, or null. */
function nested(reader: Reader, indent: number, parent: Line): YamlValue {
  const next = reader.lines[reader.at];
  if (!next || next.indent <= indent) {
    // Compose writes sequences under a key at the key's own indentation too.
    if (next && next.indent === indent && next.text.startsWith('- ') && !parent.text.startsWith('-')) return readSequence(reader, indent);
    return null;
  }
  return readBlock(reader, next.indent);
}

function inline(text: string, line: number): YamlValue {
  if (text.startsWith('[')) {
    try {
      const items = JSON.parse(text) as unknown;
      if (Array.isArray(items) && items.every((item) => typeof item === 'string')) return items;
    } catch {
      // fall through
    }
    throw new YamlError(line, 'a flow sequence that is not a JSON array of strings');
  }
  if (/^[{&*!|>%@`]/.test(text)) throw new YamlError(line, `"${text}"`);
  return scalar(text, line);
}

function scalar(text: string, line: number): string | null {
  if (text.startsWith('"')) {
    try {
      return JSON.parse(text) as string;
    } catch {
      throw new YamlError(line, `the double-quoted scalar ${text}`);
    }
  }
  if (text.startsWith("'")) {
    if (!/^'(?:[^']|'')*'$/.test(text)) throw new YamlError(line, `the single-quoted scalar ${text}`);
    return text.slice(1, -1).replace(/''/g, "'");
  }
  if (text === '~' || text === 'null') return null;
  if (/:\s|\s#/.test(text)) throw new YamlError(line, `the plain scalar ${text}`);
  return text;
}

/** The line without its comment: a `#` at the start or after a space, outside quotes. */
function stripComment(raw: string, line: number): string {
  let quote: string | undefined;
  for (let i = 0; i < raw.length; i++) {
    const char = raw[i]!;
    if (quote) {
      if (char === '\\' && quote === '"') i++;
      else if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") {
      const before = raw.slice(0, i).trimEnd();
      // Quotes open a scalar only at its start (after `key:`, `- ` or `[`/`,` of a flow sequence).
      if (before === '' || /[:\-[,]$/.test(before)) quote = char;
    } else if (char === '#' && (i === 0 || /\s/.test(raw[i - 1]!))) {
      return raw.slice(0, i);
    }
  }
  if (quote) throw new YamlError(line, 'a quoted scalar over several lines');
  return raw;
}

/**
 * Compose's interpolation of `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?error}`,
 * `${VAR?error}` and `$$`, from `env`. A required variable that is missing throws, as compose refuses to start.
 */
export function interpolate(value: string, env: Record<string, string | undefined>): string {
  return value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (whole, name, colon, op, word, bare) => {
    if (whole === '$$') return '$';
    if (bare) return env[bare] ?? '';
    const current = env[name as string];
    const missing = colon ? !current : current === undefined;
    if (op === '-') return missing ? (word as string) : current!;
    if (op === '?') {
      if (missing) throw new Error(`compose refuses to start: ${name}: ${word}`);
      return current!;
    }
    return current ?? '';
  });
}
