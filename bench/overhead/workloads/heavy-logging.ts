/**
 * Driver of workload `heavy-logging` (page: bench/overhead/page/workloads/heavy-logging.ts): 8 clicks on "Process"
 * (150 orders each: 1,200 `console.info`, 120 `console.warn`, 24 `console.error` and 8 `console.log` in all, each
 * with an object), the mouse moving to the button and over the output between them.
 */
import type { DriveWorkload } from './drive';

const BATCHES = 8;

export const driveHeavyLogging: DriveWorkload = async (page, click) => {
  for (let batch = 0; batch < BATCHES; batch++) {
    await click('process', { moveSteps: 8 });
    await page.mouse.move(300 + batch * 60, 500, { steps: 8 });
  }
};
