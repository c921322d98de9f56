/** The largest body the admin API reads; the app's default, which the OAuth endpoints lower. */
export const ADMIN_BODY_LIMIT = 256 * 1024;
