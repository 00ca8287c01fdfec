/** Variant "none": the workload page without any SDK, the baseline of every comparison. */
import { startApp } from './app';

startApp();
