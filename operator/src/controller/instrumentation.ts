import { DEFAULT_INSTRUMENTATION_NAME } from '../markers.js';
import type { SvcInstrumentation } from '../resource/types.js';

/**
 * The SvcInstrumentation that governs a namespace when it has several (there should be one): the one named `default`
 * (what the CLI creates), else the oldest, else the first by name. The webhook (through the lookup) and the status
 * both use this, so they never disagree about which one applies.
 */
export function chooseInstrumentation(candidates: readonly SvcInstrumentation[]): SvcInstrumentation | undefined {
  const created = (item: SvcInstrumentation) => {
    const value = (item.metadata as { creationTimestamp?: string | Date }).creationTimestamp;
    const time = value === undefined ? Number.NaN : new Date(value).getTime();
    return Number.isNaN(time) ? Number.POSITIVE_INFINITY : time;
  };
  return [...candidates].sort((a, b) => {
    const aDefault = a.metadata.name === DEFAULT_INSTRUMENTATION_NAME ? 0 : 1;
    const bDefault = b.metadata.name === DEFAULT_INSTRUMENTATION_NAME ? 0 : 1;
    return (
      aDefault - bDefault || created(a) - created(b) || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '')
    );
  })[0];
}
