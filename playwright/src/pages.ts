import type { BrowserContext, Page } from '@playwright/test';
import { deliver, type FlushOutcome } from './deliver';
import { flushBound, noteReachability } from './reachability';

/** The page's session id when its SDK has started. */
function sessionInPage(): string | undefined {
  const id = (globalThis as { __SVC_TEST_SDK__?: { sessionId?: unknown } }).__SVC_TEST_SDK__?.sessionId;
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
    const outcome = await bounded(deliver(page, ms), ms + ROUND_TRIP_MS);
    if (outcome) noteReachability(outcome);
    if (outcome?.timedOut) this.stalled.add(page);
    return outcome;
  }

  dispose(): void {
    this.context.off('page', this.onPage);
  }
}
