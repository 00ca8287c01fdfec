import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { Page } from '@playwright/test';

/** One page's flush: its session and how its requests went, or `timedOut` when they did not settle in time. */
export interface FlushOutcome {
  sessionId: string;
  sent?: number;
  failed?: number;
  timedOut?: true;
}

/** Requests answered with a 2xx, and otherwise. */
interface Answered {
  sent: number;
  failed: number;
}

/** A request the page's SDK handed over: the ingest path it would have posted it to, and the JSON body. */
type Drained = [path: string, body: string];

/** What the SDK exposes to tests under the fixture (contract with src/sdk/test-handle.ts, `__SVC_TEST_SDK__`). */
interface TestSdk {
  sessionId: string;
  flush(): Promise<Answered>;
  /** Absent from SDKs older than the fixture's delivery from Node.js: their `flush()` is used instead. */
  drain?(): { apiKey: string; base: string; requests: Drained[]; settled: Promise<Answered> };
  send?(path: string, body: string): Promise<boolean>;
}

/** What the page gave: its session, the requests it handed over, and the answers to those it had under way. */
type Handed = Omit<FlushOutcome, 'sent' | 'failed'> &
  Partial<Answered> & { apiKey?: string; base?: string; requests?: Drained[] };

/**
 * Runs in the page: takes what its SDK queued, and waits (at most `ms`) for the requests the SDK already had under
 * way. The requests taken are handed over even when that wait runs out. Null on a page without the SDK.
 * Self-contained: Playwright sends its source to the page.
 */
function drainInPage(ms: number): Promise<Handed> | null {
  const sdk = (globalThis as { __SVC_TEST_SDK__?: TestSdk }).__SVC_TEST_SDK__;
  if (!sdk || typeof sdk.flush !== 'function') return null;
  const sessionId = sdk.sessionId;
  const taken = typeof sdk.drain === 'function' ? sdk.drain() : { settled: sdk.flush() };
  const timedOut = new Promise<{ timedOut: true }>((resolve) => setTimeout(() => resolve({ timedOut: true }), ms));
  return Promise.race([taken.settled, timedOut]).then((answered) => ({
    ...taken,
    settled: undefined,
    sessionId,
    ...answered,
  }));
}

/** Runs in the page: the SDK posts these requests its own way (retries, warnings), waiting at most `ms`. */
function sendInPage({ requests, ms }: { requests: Drained[]; ms: number }): Promise<Answered | { timedOut: true }> {
  const sdk = (globalThis as { __SVC_TEST_SDK__?: TestSdk }).__SVC_TEST_SDK__;
  const sends = requests.map(([path, body]) => sdk?.send?.(path, body) ?? Promise.resolve(false));
  const answered = Promise.all(sends).then((ok) => ({
    sent: ok.filter(Boolean).length,
    failed: ok.filter((o) => !o).length,
  }));
  return Promise.race([
    answered,
    new Promise<{ timedOut: true }>((resolve) => setTimeout(() => resolve({ timedOut: true }), ms)),
  ]);
}

const gzipped = promisify(gzip);

/**
 * Posts one request from Node.js: over a kept-alive connection, without the page's CORS preflight. `undelivered`
 * when the server refused it or could not be reached (so it was not stored: the page may send it); `timedOut` when no
 * answer came in time (it may have been stored: not sent again, as ingest stores a record sent twice twice).
 */
async function post(
  url: string,
  body: string,
  apiKey: string,
  signal: AbortSignal,
): Promise<'sent' | 'undelivered' | 'timedOut'> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'x-api-key': apiKey },
      body: await gzipped(body),
      signal,
    });
    // Read to the end, so the connection goes back to the pool.
    await res.arrayBuffer();
    return res.ok ? 'sent' : 'undelivered';
  } catch {
    return signal.aborted ? 'timedOut' : 'undelivered';
  }
}

/** Ingest bases this process has delivered to: what a page hands over for them need not wait for its fallback. */
const reached = new Set<string>();

/** What one page handed over, and its delivery. */
export interface HandedOver {
  sessionId: string;
  /**
   * The delivery will not need the page: nothing was handed over, or this process has delivered to that ingest
   * before, so the page may close before `deliver()` settles.
   */
  detached: boolean;
  deliver(): Promise<FlushOutcome>;
}

/**
 * Takes what one page's SDK queued (`__SVC_TEST_SDK__.drain()`): the page forgets it and waits, within `ms`, for the
 * requests it already had under way. Resolves with null on a page without the SDK; rejects when the page closed or
 * navigated meanwhile. `deliver()` then posts it all at once from this process and waits for the server's answers,
 * within the same `ms`; what could not be delivered (a refusal, a server this process cannot reach that the browser
 * can) goes back to the page to send, if it is still open.
 */
export async function handOver(page: Page, ms: number): Promise<HandedOver | null> {
  const deadline = Date.now() + ms;
  const handed = await page.evaluate(drainInPage, ms);
  if (!handed) return null;
  const { sessionId, requests = [], apiKey = '', base = '' } = handed;
  const deliver = async (): Promise<FlushOutcome> => {
    const outcome: FlushOutcome & Answered = {
      sessionId,
      sent: handed.sent ?? 0,
      failed: handed.failed ?? 0,
      ...(handed.timedOut && { timedOut: true }),
    };
    const signal = AbortSignal.timeout(Math.max(0, deadline - Date.now()));
    const results = await Promise.all(requests.map(([path, body]) => post(base + path, body, apiKey, signal)));
    if (results.includes('sent')) reached.add(base);
    outcome.sent += results.filter((r) => r === 'sent').length;
    if (results.includes('timedOut')) outcome.timedOut = true;
    const back = requests.filter((_, i) => results[i] === 'undelivered');
    if (back.length > 0) {
      const answered = await page
        .evaluate(sendInPage, { requests: back, ms: Math.max(0, deadline - Date.now()) })
        .catch(() => ({ sent: 0, failed: back.length })); // the page closed or navigated meanwhile
      if ('timedOut' in answered) outcome.timedOut = true;
      else {
        outcome.sent += answered.sent;
        outcome.failed += answered.failed;
      }
    }
    return outcome;
  };
  return { sessionId, detached: requests.length === 0 || reached.has(base), deliver };
}
