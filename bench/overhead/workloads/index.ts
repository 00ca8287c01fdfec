/** Every workload's driver, by name. */
import type { Workload } from '../page/workloads/names';
import { driveCanvasAnimation } from './canvas-animation';
import { driveClassic } from './classic';
import { driveDataGrid } from './data-grid';
import type { DriveWorkload } from './drive';
import { driveFormFlow } from './form-flow';
import { driveHeavyLogging } from './heavy-logging';
import { driveInfiniteScroll } from './infinite-scroll';
import { driveSpaRoutes } from './spa-routes';
import { driveTypingChurn } from './typing-churn';

export const WORKLOAD_DRIVERS: Record<Workload, DriveWorkload> = {
  classic: driveClassic,
  'typing-churn': driveTypingChurn,
  'data-grid': driveDataGrid,
  'form-flow': driveFormFlow,
  'spa-routes': driveSpaRoutes,
  'infinite-scroll': driveInfiniteScroll,
  'canvas-animation': driveCanvasAnimation,
  'heavy-logging': driveHeavyLogging,
};
