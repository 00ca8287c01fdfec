/** Every workload's page side, by name (bundled into every variant, so each variant downloads the same app code). */
import type { StartWorkload } from '../kit';
import { startCanvasAnimation } from './canvas-animation';
import { startClassic } from './classic';
import { startDataGrid } from './data-grid';
import { startFormFlow } from './form-flow';
import { startHeavyLogging } from './heavy-logging';
import { startInfiniteScroll } from './infinite-scroll';
import type { Workload } from './names';
import { startSpaRoutes } from './spa-routes';
import { startTypingChurn } from './typing-churn';

export const WORKLOAD_PAGES: Record<Workload, StartWorkload> = {
  classic: startClassic,
  'typing-churn': startTypingChurn,
  'data-grid': startDataGrid,
  'form-flow': startFormFlow,
  'spa-routes': startSpaRoutes,
  'infinite-scroll': startInfiniteScroll,
  'canvas-animation': startCanvasAnimation,
  'heavy-logging': startHeavyLogging,
};
