import type { BrowserContext, Page } from '@playwright/test';
import { handOver, type FlushOutcome } from './deliver';
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

/** One page's hand-over: its delivery (never rejects), and whether that still needs the page (see HandedOver). */
export interface Delivery {
  detached: boolean;
  deliver(): Promise<FlushOutcome | undefined>;
}

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
   * Takes what every open page's SDK queued, at once, each within flushTimeoutMs (closed and navigating pages are
   * skipped, and so are pages that ran out of time before in this test). Each delivery, started by the caller, ends
   * within the same bound.
   */
  async handOver(): Promise<Delivery[]> {
    await this.probe;
    const open = this.context.pages().filter((page) => !page.isClosed() && !this.stalled.has(page));
    const handed = await Promise.all(open.map((page) => this.handOverPage(page)));
    return handed.filter((d): d is Delivery => d !== undefined);
  }

  /** Delivers what every open page's SDK queued and waits for the server's answers. */
  async flush(): Promise<FlushOutcome[]> {
    const outcomes = await Promise.all((await this.handOver()).map((d) => d.deliver()));
    return outcomes.filter((o): o is FlushOutcome => o !== undefined);
  }

  private async handOverPage(page: Page): Promise<Delivery | undefined> {
    const ms = flushBound(this.flushTimeoutMs);
    const deadline = Date.now() + ms + ROUND_TRIP_MS;
    // Undefined: no SDK, the page closed or navigated, or it did not answer in time.
    const handed = (await bounded(handOver(page, ms), ms + ROUND_TRIP_MS)) ?? undefined;
    if (!handed) return undefined;
    this.seen.add(handed.sessionId);
    return {
      detached: handed.detached,
      deliver: async () => {
        const outcome = await bounded(handed.deliver(), deadline - Date.now());
        if (outcome) noteReachability(outcome);
        if (outcome?.timedOut) this.stalled.add(page);
        return outcome;
      },
    };
  }

  dispose(): void {
    this.context.off('page', this.onPage);
  }
}
