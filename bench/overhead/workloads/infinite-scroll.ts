/**
 * Driver of workload `infinite-scroll` (page: bench/overhead/page/workloads/infinite-scroll.ts): the mouse over the
 * feed, 24 turns of the wheel (900 px each), each followed by waiting until the pages it made the page load are in,
 * images decoded. The feed stops at 15 pages (180 images), which the wheel reaches about two thirds of the way.
 */
import { idle } from '../run';
import type { DriveWorkload } from './drive';

const WHEEL_TURNS = 24;
const WHEEL_PX = 900;

export const driveInfiniteScroll: DriveWorkload = async (page) => {
  await idle(page);
  await page.mouse.move(640, 400, { steps: 5 });
  for (let turn = 0; turn < WHEEL_TURNS; turn++) {
    await page.mouse.wheel(0, WHEEL_PX);
    await idle(page);
  }
};
