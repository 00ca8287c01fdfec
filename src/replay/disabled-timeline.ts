import { randomHexId } from '../session/ids';
import type { ReplayTimeline } from './timeline';

/**
 * A timeline that keeps and sends nothing: the core's until the replay integration starts the real one, and the
 * timeline of `replay.enabled: false`. Its own module, so that an app without replay bundles none of timeline.ts.
 */
export function disabledTimeline(): ReplayTimeline {
  const nothing = (): void => undefined;
  return {
    replayId: randomHexId(),
    event: nothing,
    recipe: nothing,
    flush: () => Promise.resolve(),
    flushForUnload: nothing,
    drain: () => [],
    errorCaptured: nothing,
    stop: () => Promise.resolve(),
  };
}
