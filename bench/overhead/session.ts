/**
 * Bytes sent per minute of a recorded session: one variant's page of the `classic` workload used the way a person uses it for a set
 * time (`--session-seconds`), with pauses between actions, mouse movement, scrolling and typing at human speed, and
 * the same DOM churn, fetches and navigations as the measured workload. What the sink received, page close included,
 * divided by the session's length from navigation to close. Main-thread time is not measured here (run.ts does).
 */
import type { Browser, Page } from '@playwright/test';
import type { Variant } from './build';
import { SETTLE_MS, closeAndCollect, controlsOf, openVariant, type ClickControl } from './run';
import type { AppServer, Sink, SinkRequest } from './servers';

/** Pause between two actions, ms: a brisk user who knows the page. */
const THINK_MS = 1_000;
/** Delay between key presses, ms: about 40 words a minute. */
const KEY_DELAY_MS = 120;
/** Mouse moves to a control in this many steps (a `mousemove` each) before clicking it. */
const MOVE_STEPS = 12;

/** What one recorded session sent. */
export interface SessionResult {
  variant: Variant;
  /** From navigation to the page's close, s. */
  seconds: number;
  telemetry: SinkRequest[];
}

/** One user action; `step` numbers the actions, for varying the typed text. */
type Action = (click: ClickControl, page: Page, step: number) => Promise<void>;

/** One round of a user's actions, repeated until the session's time is up. */
const ACTIONS: readonly Action[] = [
  (click) => click('load', { moveSteps: MOVE_STEPS }),
  async (_click, page) => {
    // Read down the list and back up.
    await page.mouse.move(640, 500, { steps: MOVE_STEPS });
    await page.mouse.wheel(0, 600);
    await page.waitForTimeout(THINK_MS);
    await page.mouse.wheel(0, -600);
  },
  async (click, page, step) => {
    await click('name', { moveSteps: MOVE_STEPS });
    await page.keyboard.type(`Ann Smith ${step}`, { delay: KEY_DELAY_MS });
  },
  async (click, page, step) => {
    await click('email', { moveSteps: MOVE_STEPS });
    await page.keyboard.type(`ann.smith${step}@example.com`, { delay: KEY_DELAY_MS });
  },
  (click) => click('save', { moveSteps: MOVE_STEPS }),
  (click) => click('churn', { moveSteps: MOVE_STEPS }),
  (click) => click('next', { moveSteps: MOVE_STEPS }),
];

/** Records one session of `seconds` of use (plus the settle period) on `variant`'s page. */
export async function recordSession(
  browser: Browser,
  servers: { app: AppServer; sink: Sink },
  options: { variant: Variant; run: number; seconds: number },
): Promise<SessionResult> {
  const { variant, run, seconds } = options;
  const { page, url, done } = await openVariant(browser, servers.app, variant, 'classic', run);
  try {
    const started = performance.now();
    await page.goto(url, { waitUntil: 'load' });
    const click = controlsOf(page);
    for (let step = 0; performance.now() - started < seconds * 1000; step++) {
      await ACTIONS[step % ACTIONS.length]!(click, page, step);
      await page.waitForTimeout(THINK_MS);
    }
    await page.waitForTimeout(SETTLE_MS);
    const length = (performance.now() - started) / 1000;
    return { variant, seconds: length, telemetry: await closeAndCollect(page, servers.sink, run) };
  } finally {
    await done();
  }
}
