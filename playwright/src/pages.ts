import type { BrowserContext, Page } from '@playwright/test';
import { flushBound, noteReachability } from './reachability';

/** What the SDK exposes to tests when it runs under the fixture (contract with src/, `__SVC_TEST_SDK__`). */
interface TestSdk {
  sessionId: string;
  flush(): Promise<{ sent: number; failed: number }>;
}

/** One page's flush: its session and how its requests went, or `timedOut` when the SDK did not settle in time. */
export interface FlushOutcome {
  sessionId: string;
  sent?: number;
  failed?: number;
  timedOut?: true;
}

/**
 * Runs in the page: the SDK's flush, bounded by `ms` in the page too, so the evaluation settles even when a request
 * hangs. Resolves with null on a page without the SDK. Self-contained: Playwright sends its source to the page.
 */
function flushInPage(ms: number): Promise<FlushOutcome | null> | null {
  const sdk = (globalThis as { __SVC_TEST_SDK__?: TestSdk }).__SVC_TEST_SDK__;
  if (!sdk || typeof sdk.flush !== 'function') return null;
  const sessionId = sdk.sessionId;
  const timedOut = new Promise<FlushOutcome>((resolve) => setTimeout(() => resolve({ sessionId, timedOut: true }), ms));
  return Promise.race([sdk.flush().then((r) => ({ sessionId, sent: r.sent, failed: r.failed })), timedOut]);
}

/** The page's session id when its SDK has started. */
function sessionInPage(): string | undefined {
  const id = (globalThis as { __SVC_TEST_SDK__?: TestSdk }).__SVC_TEST_SDK__?.sessionId;
  return typeof id === 'string' ? id : undefined;
}

/** A promise that resolves with `value` after `ms`, and a way to stop its timer. */
function timer<T>(ms: number, value: T): { promise: Promise<T>; cancel(): void } {
  let handle: ReturnType<typeof setTimeout> | undefined;
  const promise = new Promise<T>((resolve) => {
    handle = setTimeout(() => resolve(value), ms);
  });
  return { promise, cancel: () => clearTimeout(handle) };
}

/** Races `work` against `ms`; undefined when time ran out or the work failed (a closed or navigating page). */
export async function bounded<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  const limit = timer<undefined>(ms, undefined);
  try {
    return await Promise.race([work.catch(() => undefined), limit.promise]);
  } finally {
    limit.cancel();
  }
}

/** Grace on top of the page's own bound, for the evaluation's round trip. */
const ROUND_TRIP_MS = 1_000;


/**
 * The pages of one test's context and the SDK sessions they ran. A session id is noted at each page load, so a page
 * closed during the test still has its session read afterwards (what it queued is only what the SDK's own page-hide
 * delivery sent); the pages open at the end are flushed.
 */
export class ContextPages {
  private readonly seen = new Set<string>();
  /** Pages whose SDK did not settle in time once: not waited for again in this test (svc is likely down). */
  private readonly stalled = new WeakSet<Page>();
  private readonly onPage = (page: Page) => this.watch(page);

  constructor(
    private readonly context: BrowserContext,
    private readonly flushTimeoutMs: number,
    /** The worker's reachability probe (see reachability.ts), settled before the first flush is bounded. */
    private readonly probe: Promise<void> = Promise.resolve(),
  ) {
    context.on('page', this.onPage);
    for (const page of context.pages()) this.watch(page);
  }

  private watch(page: Page): void {
    page.on('load', () => void this.note(page));
  }

  private async note(page: Page): Promise<void> {
    const id = await bounded(page.evaluate(sessionInPage), this.flushTimeoutMs);
    if (id) this.seen.add(id);
  }

  /** The sessions seen so far, in the order they were first seen. */
  sessionIds(): string[] {
    return [...this.seen];
  }

  /**
   * Flushes every open page's SDK at once, each bounded by flushTimeoutMs; closed and navigating pages are skipped,
   * and so are pages that ran out of time before in this test.
   */
  async flush(): Promise<FlushOutcome[]> {
    await this.probe;
    const open = this.context.pages().filter((page) => !page.isClosed() && !this.stalled.has(page));
    const outcomes = await Promise.all(open.map((page) => this.flushPage(page)));
    const flushed = outcomes.filter((o): o is FlushOutcome => o !== undefined && o !== null);
    for (const o of flushed) this.seen.add(o.sessionId);
    return flushed;
  }

  private async flushPage(page: Page): Promise<FlushOutcome | null | undefined> {
    const ms = flushBound(this.flushTimeoutMs);
    const outcome = await bounded(page.evaluate(flushInPage, ms), ms + ROUND_TRIP_MS);
    if (outcome) noteReachability(outcome);
    if (outcome?.timedOut) this.stalled.add(page);
    return outcome;
  }

  dispose(): void {
    this.context.off('page', this.onPage);
  }
}
