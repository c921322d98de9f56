/** What the routes of the pages a browser visits (src/web/pages.ts) share. */

/** The GET routes of pages answer GET only: a HEAD request must not start or move a flow. */
export const GET_ONLY = { exposeHeadRoute: false } as const;

/** A form came back without its CSRF token, or with a wrong one or a missing field. */
export class InvalidFormError extends Error {
  override name = 'InvalidFormError';
}
