import { API_KEY_HEADER } from '../../wire/paths';
import type { PipelineClock } from './clock';
import { gzipText } from './gzip';
import type { KeepaliveBudget } from './keepalive-budget';
import { parseRetryAfter, statusVerdict } from './retry';

/** A request body: JSON text, or its gzip. */
type Body = string | Uint8Array<ArrayBuffer>;

/** How one request ended, as far as its records are concerned. */
export type SendResult =
  | { readonly verdict_: 'delivered' }
  /** Final refusal (a 4xx other than 408/429): resending the same body cannot succeed. */
  | { readonly verdict_: 'refused'; readonly status_: number; readonly detail_: string }
  /**
   * Network error, timeout, 408, 429 or 5xx: worth another attempt, after `retryAfterMs` when the server said so.
   * `status` and `detail` when the server answered.
   */
  | {
      readonly verdict_: 'retry';
      readonly reason_: string;
      readonly retryAfterMs_: number | undefined;
      readonly status_?: number;
      readonly detail_?: string;
    };

export interface Transport {
  /** The original, unpatched fetch: the SDK's own requests are never traced. */
  readonly fetch: typeof fetch;
  readonly apiKey: string;
  readonly timeoutMs_: number;
  readonly budget_: KeepaliveBudget;
  readonly clock: PipelineClock;
}

interface Answer {
  readonly status_: number;
  readonly retryAfter_: string | null;
  /** Start of the error body, for the debug warning; empty on success. */
  readonly detail_: string;
}

/**
 * One POST with the key header, no cookies, and an abort after `timeoutMs` (the timer also covers reading the
 * response body).
 */
async function request(t: Transport, url: string, body: Body, keepalive: boolean): Promise<Answer> {
  const controller = typeof AbortController === 'function' ? new AbortController() : undefined;
  const timer = controller ? t.clock.setTimeout(() => controller.abort(), t.timeoutMs_) : undefined;
  try {
    const response = await t.fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        [API_KEY_HEADER]: t.apiKey,
        ...(typeof body === 'string' ? {} : { 'content-encoding': 'gzip' }),
      },
      body,
      keepalive,
      credentials: 'omit',
      signal: controller && controller.signal,
    });
    // Read to the end even on success: Chromium frees a keepalive request's quota only once its response body has
    // been consumed (cancelling the body is not enough), and the budget is released when this returns.
    const text = await response.text().catch(() => '');
    return {
      status_: response.status,
      retryAfter_: response.headers.get('retry-after'),
      detail_: response.ok ? '' : text.slice(0, 300),
    };
  } finally {
    if (timer !== undefined) t.clock.clearTimeout(timer);
  }
}

/**
 * Sends with `keepalive` when asked and the body fits the budget, so the request survives the page going away. A
 * keepalive request failing with a TypeError (the browser's quota is shared with the page's own keepalive requests
 * and beacons, which the budget cannot see) is tried once more without keepalive.
 */
async function send(t: Transport, url: string, body: Body, bytes: number, wantKeepalive: boolean): Promise<Answer> {
  if (wantKeepalive && t.budget_.reserve_(bytes)) {
    let abandoned = false;
    try {
      return await request(t, url, body, true);
    } catch (error) {
      // Aborting a keepalive fetch only settles the page's promise: Chromium keeps the request open, and its bytes
      // counted against the quota, for as long as the server takes. Those bytes stay reserved for the rest of the
      // page's life, so that a later page-hide flush falls back to sendBeacon instead of overcommitting.
      abandoned = isTimeout(error);
      if (!(error instanceof TypeError)) throw error;
    } finally {
      if (!abandoned) t.budget_.release_(bytes);
    }
  }
  return request(t, url, body, false);
}

const isTimeout = (error: unknown): boolean => error instanceof Error && error.name === 'AbortError';

function describe(error: unknown): string {
  if (error instanceof Error) return isTimeout(error) ? 'timed out' : `${error.name}: ${error.message}`;
  return String(error);
}

/**
 * Posts one JSON body to ingest and tells what became of it. Never throws. With `compress`, the body goes gzipped
 * (`Content-Encoding: gzip`, which ingest accepts and allows in CORS) when the browser can compress: OTLP/JSON
 * shrinks about tenfold. The page-hide path does not compress: the request must be handed to the browser before its
 * event handler returns, and compression is asynchronous.
 */
export async function postBody(
  t: Transport,
  url: string,
  body: string,
  bytes: number,
  keepalive: boolean,
  compress = false,
): Promise<SendResult> {
  let answer: Answer;
  try {
    const gzipped = compress ? await gzipText(body) : undefined;
    answer = await send(t, url, gzipped || body, gzipped ? gzipped.length : bytes, keepalive);
  } catch (error) {
    return { verdict_: 'retry', reason_: describe(error), retryAfterMs_: undefined };
  }
  const { status_: status, detail_: detail } = answer;
  const verdict = statusVerdict(status);
  if (verdict === 'delivered') return { verdict_: verdict };
  if (verdict === 'refused') return { verdict_: verdict, status_: status, detail_: detail };
  return {
    verdict_: verdict,
    status_: status,
    detail_: detail,
    reason_: `HTTP ${status}`,
    retryAfterMs_: parseRetryAfter(answer.retryAfter_, t.clock.now()),
  };
}
