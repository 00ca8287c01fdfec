/**
 * Driver of workload `spa-routes` (page: bench/overhead/page/workloads/spa-routes.ts): 40 route changes, each waited
 * for: a click on the next link of the navigation bar (a `pushState`), and every fourth change "Back" instead (a
 * `popstate`), the mouse moving to each control in a few steps.
 */
import { ROUTES } from '../page/workloads/spa-routes';
import type { DriveWorkload } from './drive';

const CHANGES = 40;
const MOVE_STEPS = 5;

export const driveSpaRoutes: DriveWorkload = async (_page, click) => {
  for (let change = 0; change < CHANGES; change++)
    await click(change % 4 === 3 ? 'back' : ROUTES[(change * 3) % ROUTES.length]!, { moveSteps: MOVE_STEPS });
};
