/**
 * Driver of workload `classic` (page: bench/overhead/page/workloads/classic.ts), as issues 3, 4 and 16 measured it:
 * 10 rounds of 6-7 clicks, about 12 key presses, 2 fetches, 2,000 nodes added and removed, half a second of a
 * 250-node block replaced every 5 ms with the mouse moving over it, and 4 console calls. Typing is kept short: each
 * key press costs Chromium about 6 ms of main-thread time for text editing alone, the same with or without an SDK,
 * and that common cost only adds noise to the differences.
 */
import { KEY_DELAY_MS, type DriveWorkload } from './drive';

const ROUNDS = 10;
/** Mouse moves while the "Live" block updates: a hand crossing the page (a `mousemove` each). */
const LIVE_MOVE_STEPS = 25;

export const driveClassic: DriveWorkload = async (page, click) => {
  for (let round = 1; round <= ROUNDS; round++) {
    await click('load');
    await click('name');
    await page.keyboard.type(`Ann ${round}`, { delay: KEY_DELAY_MS });
    await click('email');
    await page.keyboard.type(`a${round}@x.io`, { delay: KEY_DELAY_MS });
    await click('save');
    await click('churn');
    // Across the page and back on alternate rounds, over the block being replaced.
    await click('live', { meanwhile: () => page.mouse.move(round % 2 ? 900 : 100, 500, { steps: LIVE_MOVE_STEPS }) });
    if (round % 3 === 0) await click('next');
  }
};
