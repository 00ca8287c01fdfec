/** How the reporter talks to the server: retries with exponential backoff, one warning at most, never a throw. */
export interface UploaderOptions {
  /** Base URL of the svc server, without a trailing slash. */
  url: string;
  /** A control key (it writes). */
  apiKey: string;
  /** Tries after the first one for a request that failed on the network, with a 5xx, 408 or 429. Default 4. */
  retries?: number;
  /** Wait before the first retry, doubled before each next one (capped at 8 s). Default 500 ms. */
  backoffMs?: number;
  /** Longest wait for one answer. Default 10 s. */
  requestTimeoutMs?: number;
  /** Called once, with the first problem; later ones are dropped. Default console.warn. */
  warn?: (message: string) => void;
}

const MAX_BACKOFF_MS = 8_000;

/** A status worth trying again: the server or something in front of it may recover; a 4xx other than these will not. */
const retryable = (status: number) => status >= 500 || status === 408 || status === 429;

class Refused extends Error {}

/** `fetch failed: ECONNREFUSED`: undici hides the reason in the error's cause. */
function describe(error: unknown): string {
  const e = error as Error & { cause?: { code?: string; message?: string } };
  const cause = e.cause?.code ?? e.cause?.message;
  return cause ? `${e.message}: ${cause}` : e.message;
}

export class Uploader {
  private readonly abort = new AbortController();
  private warned = false;
  /** Set when a request ran out of retries: the server is taken to be down, and nothing more is tried. */
  private down = false;

  constructor(private readonly o: UploaderOptions) {}

  get url(): string {
    return this.o.url;
  }

  /** True while every request so far was taken by the server. */
  get delivered(): boolean {
    return !this.warned && !this.down;
  }

  /** Warns once per run, whatever goes wrong after. */
  warnOnce(message: string): void {
    if (this.warned) return;
    this.warned = true;
    (this.o.warn ?? ((m: string) => console.warn(m)))(`svc: ${message}`);
  }

  /** Stops every request under way and every wait; later sends resolve false at once. */
  stop(): void {
    this.abort.abort();
  }

  private wait(ms: number): Promise<void> {
    const signal = this.abort.signal;
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done);
    });
  }

  private async once(method: string, path: string, body: unknown): Promise<void> {
    const signal = AbortSignal.any([this.abort.signal, AbortSignal.timeout(this.o.requestTimeoutMs ?? 10_000)]);
    const res = await fetch(`${this.o.url}/control-plane${path}`, {
      method,
      headers: { authorization: `Bearer ${this.o.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal,
    });
    const text = await res.text();
    if (res.ok) return;
    const problem = `${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`;
    throw retryable(res.status) ? new Error(problem) : new Refused(problem);
  }

  /**
   * Sends one request, retrying what may succeed later. True when the server took it. Every request is idempotent on
   * the server (PUT of the run, results per test attempt), so a retry after a lost answer stores nothing twice.
   */
  async send(method: 'PUT' | 'POST', path: string, body: unknown): Promise<boolean> {
    const retries = this.o.retries ?? 4;
    let backoff = this.o.backoffMs ?? 500;
    for (let attempt = 0; !this.down && !this.abort.signal.aborted; attempt++) {
      try {
        await this.once(method, path, body);
        return true;
      } catch (error) {
        if (error instanceof Refused) {
          this.warnOnce(
            `${error.message} (results of this run may be missing in svc; the tests' own results are not affected)`,
          );
          return false;
        }
        if (attempt >= retries) {
          this.down = true;
          this.warnOnce(
            `${this.o.url} is unreachable (${describe(error)}); this run's results were not sent to svc. The tests' own results are not affected.`,
          );
          return false;
        }
      }
      await this.wait(backoff);
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
    return false;
  }
}
