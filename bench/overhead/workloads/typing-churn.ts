/**
 * Driver of workload `typing-churn` (page: bench/overhead/page/workloads/typing-churn.ts): starts the live panel,
 * then, while it replaces its 300 nodes every 40 ms, 6 rounds of: select and retype the e-mail and the password
 * (about 27 key presses), move the mouse across the panel, click "Search" (a JSON fetch) and "Next" (a history
 * entry). Then waits until the panel's last tick and every fetch are done.
 */
import { KEY_DELAY_MS, type DriveWorkload } from './drive';

const ROUNDS = 6;
const MOVE_STEPS = 20;

export const driveTypingChurn: DriveWorkload = async (page, click) => {
  const busy = { wait: false } as const;
  await click('live', {
    meanwhile: async () => {
      for (let round = 1; round <= ROUNDS; round++) {
        await click('email', busy);
        await page.keyboard.press('Control+A');
        await page.keyboard.type(`user${round}@example.com`, { delay: KEY_DELAY_MS });
        await click('password', busy);
        await page.keyboard.press('Control+A');
        await page.keyboard.type(`Secret-${round}!x`, { delay: KEY_DELAY_MS });
        await page.mouse.move(round % 2 ? 1000 : 100, 500, { steps: MOVE_STEPS });
        await click('search', busy);
        await click('next', busy);
      }
    },
  });
};
