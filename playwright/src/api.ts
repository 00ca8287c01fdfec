/** The few control-plane calls the fixture makes, with a key; every answer's status is checked. */
export interface ApiClient {
  get<T>(path: string, query?: Record<string, string | number | undefined>): Promise<T>;
  /** Every item of a keyset-paged listing (`{ data, next_cursor }`), following `next_cursor`. */
  all<T>(path: string, query?: Record<string, string | number | undefined>, pageSize?: number): Promise<T[]>;
}

/**
 * svc could not be asked: the network failed, the answer took too long, or the server failed (5xx). Tests treat it
 * apart from a wrong key or URL (4xx): svc being down is not the app's failure.
 */
export class SvcUnreachable extends Error {}

/** Pages read at most from one listing: 10 × 1000 records is far more than one test produces. */
const MAX_PAGES = 10;

export function apiClient(url: string, apiKey: string, timeoutMs = 10_000): ApiClient {
  async function get<T>(path: string, query: Record<string, string | number | undefined> = {}): Promise<T> {
    const target = new URL(`${url}/control-plane${path}`);
    for (const [name, value] of Object.entries(query))
      if (value !== undefined) target.searchParams.set(name, String(value));
    const what = `svc: GET ${target.pathname}${target.search}`;
    let res: Response;
    let text: string;
    try {
      res = await fetch(target, {
        headers: { authorization: `Bearer ${apiKey}` },
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await res.text();
    } catch (error) {
      throw new SvcUnreachable(`${what} failed: ${(error as Error).message}`);
    }
    if (!res.ok) {
      const problem = `${what} answered ${res.status}: ${text.slice(0, 500)}`;
      throw res.status >= 500 ? new SvcUnreachable(problem) : new Error(problem);
    }
    return JSON.parse(text) as T;
  }
  return {
    get,
    async all<T>(path: string, query: Record<string, string | number | undefined> = {}, pageSize = 1000) {
      const items: T[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const answer = await get<{ data: T[]; next_cursor: string | null }>(path, {
          ...query,
          limit: pageSize,
          cursor,
        });
        items.push(...answer.data);
        if (!answer.next_cursor) break;
        cursor = answer.next_cursor;
      }
      return items;
    },
  };
}
