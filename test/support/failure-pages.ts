/**
 * What the tests of failure pages read (CONTRACT.md §16): the reference a page names, its way
 * back to the application, and the log line that holds the reference beside its request's line.
 */

/** The reference the page names; a page without one fails the test. */
export function referenceOf(page: string): string {
  const reference = /<p class="reference">[^<]*<code>([0-9a-f]{12})<\/code><\/p>/.exec(page)?.[1];
  if (!reference) throw new Error(`no reference on: ${page.slice(0, 400)}`);
  return reference;
}

/** The page's "back to the application" link: its href and its words. */
export const backLink = (page: string) => /<a class="back-to-application" href="([^"]*)">([^<]*)<\/a>/.exec(page);

/** The log entry that holds the reference, and the request line of the same request. */
export function loggedReference(entries: readonly Record<string, unknown>[], reference: string): { line: Record<string, unknown>; request: Record<string, unknown> } {
  const line = entries.find((entry) => entry.reference === reference);
  if (!line) throw new Error(`no log line holds ${reference}`);
  const request = entries.find((entry) => entry.msg === 'request' && entry.reqId === line.reqId);
  if (!request) throw new Error(`no request line of ${String(line.reqId)}`);
  return { line, request };
}
