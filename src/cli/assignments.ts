import { UsageError } from './errors.js';

/**
 * `name=value` arguments (realm settings, client metadata, user claims) as an object. A
 * value is read as JSON where it is JSON (`600`, `true`, `null`, `["password","otp"]`,
 * `"600"` for the string), else as the text it is (`RS256`, `https://app.example/cb`).
 */
export function parseAssignments(items: readonly string[], what: string): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const item of items) {
    const at = item.indexOf('=');
    if (at <= 0) throw new UsageError(`expected ${what}=value, got "${item.slice(0, 100)}"`);
    const name = item.slice(0, at);
    if (Object.hasOwn(result, name)) throw new UsageError(`${name} is given twice`);
    result[name] = jsonOrText(item.slice(at + 1));
  }
  return result;
}

function jsonOrText(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
