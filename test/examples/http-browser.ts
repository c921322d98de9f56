import { hiddenInputs } from '../support/flow.js';

/**
 * A browser made of fetch: it follows redirects itself, keeps cookies per host (as browsers
 * do: not per port, so that the example application's cookies and realmgate's, both on
 * 127.0.0.1, meet as they would in a real browser), and posts the forms of realmgate's pages
 * back with their hidden inputs.
 */
export class HttpBrowser {
  private readonly jar = new Map<string, Map<string, string>>();
  /** Every URL requested, in order. */
  readonly visited: string[] = [];

  /** GETs `url` and follows redirects; the last answer and its URL. */
  async get(url: string): Promise<{ url: string; status: number; body: string }> {
    return this.follow(await this.request(url, { method: 'GET' }), url);
  }

  /** Posts the form of `page` (its hidden inputs, and `fields`) to the page's own URL, and follows redirects. */
  async submit(page: { url: string; body: string }, fields: Record<string, string>): Promise<{ url: string; status: number; body: string }> {
    const body = new URLSearchParams({ ...hiddenInputs(page.body), ...fields }).toString();
    const response = await this.request(page.url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
    return this.follow(response, page.url);
  }

  private async follow(response: Response, url: string): Promise<{ url: string; status: number; body: string }> {
    for (let hops = 0; hops < 20; hops++) {
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) return { url, status: response.status, body: await response.text() };
      await response.body?.cancel();
      url = new URL(location, url).href;
      response = await this.request(url, { method: 'GET' });
    }
    throw new Error(`too many redirects, the last to ${url}`);
  }

  private async request(url: string, init: RequestInit): Promise<Response> {
    this.visited.push(`${init.method} ${url}`);
    const host = new URL(url).hostname;
    const cookies = this.jar.get(host) ?? new Map<string, string>();
    const headers = new Headers(init.headers);
    if (cookies.size > 0) headers.set('cookie', [...cookies].map(([name, value]) => `${name}=${value}`).join('; '));
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = value === '' || attributes.some((attribute) => /^\s*max-age=0\s*$/i.test(attribute));
      if (expired) cookies.delete(name);
      else cookies.set(name, value);
    }
    this.jar.set(host, cookies);
    return response;
  }
}
