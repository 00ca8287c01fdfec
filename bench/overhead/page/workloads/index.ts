/** Every workload's page side, by name (bundled into every variant, so each variant downloads the same app code). */
import type { StartWorkload } from '../kit';
import { startClassic } from './classic';
import type { Workload } from './names';
import { startTypingChurn } from './typing-churn';

export const WORKLOAD_PAGES: Record<Workload, StartWorkload> = {
  classic: startClassic,
  'typing-churn': startTypingChurn,
};
