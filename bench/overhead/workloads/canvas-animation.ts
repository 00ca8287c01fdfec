/**
 * Driver of workload `canvas-animation` (page: bench/overhead/page/workloads/canvas-animation.ts): 2 rounds of
 * "Play" (240 frames) with the mouse sweeping over the canvas and back meanwhile (a `mousemove` every step).
 */
import type { DriveWorkload } from './drive';

const ROUNDS = 2;
const SWEEP_STEPS = 40;

export const driveCanvasAnimation: DriveWorkload = async (page, click) => {
  for (let round = 0; round < ROUNDS; round++) {
    await click('play', {
      meanwhile: async () => {
        for (let sweep = 0; sweep < 3; sweep++) {
          await page.mouse.move(850, 150 + sweep * 60, { steps: SWEEP_STEPS });
          await page.mouse.move(50, 300 - sweep * 60, { steps: SWEEP_STEPS });
        }
      },
    });
  }
};
