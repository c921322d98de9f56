/**
 * The script of the form post page (src/pages/form-post.ts), inlined and allowed by its hash:
 * it submits the page's one form at once.
 */
export {};

document.forms[0]?.submit();
