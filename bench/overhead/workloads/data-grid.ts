/**
 * Driver of workload `data-grid` (page: bench/overhead/page/workloads/data-grid.ts): 3 rounds of "Stream" (20
 * re-renders of the 2,000-node grid, 80 ms apart) with the mouse sweeping over the grid meanwhile, a sort by a
 * column, and 4 characters typed into the filter and removed again (a re-render per key press).
 */
import { KEY_DELAY_MS, type DriveWorkload } from './drive';

const ROUNDS = 3;
const SORTS = ['sortBid', 'sortVolume', 'sortSymbol'];

export const driveDataGrid: DriveWorkload = async (page, click) => {
  for (let round = 0; round < ROUNDS; round++) {
    await click('stream', {
      meanwhile: async () => {
        await page.mouse.move(200, 300, { steps: 5 });
        await page.mouse.move(900, 700, { steps: 30 });
      },
    });
    await click(SORTS[round]!);
    await click('filter');
    await page.keyboard.type(`s${round + 1}2`, { delay: KEY_DELAY_MS });
    for (let i = 0; i < 3; i++) await page.keyboard.press('Backspace', { delay: KEY_DELAY_MS });
    await click('grid');
  }
};
