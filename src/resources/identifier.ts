/** How long an identifier may be: it is stored, compared and echoed in tokens. */
export const MAX_RESOURCE_IDENTIFIER_LENGTH = 2048;

/** RFC 3986 §3.1 scheme, then anything but spaces and control characters. */
const ABSOLUTE_URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\u0000-\u0020\u007f]+$/;

/**
 * RFC 8707 §2: a resource indicator is an absolute URI (RFC 3986 §4.3) without a fragment. It is
 * compared as it is given: `https://api.example.com` and `https://api.example.com/` are two.
 */
export function isResourceIdentifier(value: string): boolean {
  return value.length <= MAX_RESOURCE_IDENTIFIER_LENGTH && !value.includes('#') && ABSOLUTE_URI.test(value) && URL.canParse(value);
}

export const RESOURCE_IDENTIFIER_RULE = 'must be an absolute URI without a fragment (RFC 8707 §2)';
