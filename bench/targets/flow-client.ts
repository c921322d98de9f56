/** The web client of the code flow, the same on every server. Never fetched: the flow reads the redirect, as a client's callback would receive it. */
export const REDIRECT_URI = 'http://127.0.0.1:9/callback';
export const SCOPE = 'openid profile';
