/**
 * A browser's cookie jar for fetch, as far as tests need one: remembers each `Set-Cookie` by name, forgets a cookie
 * deleted with `Max-Age=0` (or an expiry in the past), and sends them all back. Paths and domains are not kept apart:
 * a test's jar talks to one server.
 */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  /** Takes the cookies a response sets (or deletes), and returns the response. */
  take(res: Response): Response {
    for (const line of res.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      const deleted = attributes.some((attribute) => {
        const [key = '', value = ''] = attribute.split('=');
        if (/^max-age$/i.test(key)) return Number(value) <= 0;
        return /^expires$/i.test(key) && Date.parse(value) <= Date.now();
      });
      if (deleted) this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(at + 1));
    }
    return res;
  }

  get(name: string): string | undefined {
    return this.cookies.get(name);
  }

  set(name: string, value: string): void {
    this.cookies.set(name, value);
  }

  /** The `Cookie` header to send. */
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  /** GET `url` without following a redirect, sending the jar's cookies and taking what it sets. */
  async visit(url: string | URL): Promise<Response> {
    return this.take(await fetch(url, { redirect: 'manual', headers: { cookie: this.header() } }));
  }
}
