/** Every workload's driver, by name. */
import type { Workload } from '../page/workloads/names';
import { driveClassic } from './classic';
import type { DriveWorkload } from './drive';
import { driveTypingChurn } from './typing-churn';

export const WORKLOAD_DRIVERS: Record<Workload, DriveWorkload> = {
  classic: driveClassic,
  'typing-churn': driveTypingChurn,
};
