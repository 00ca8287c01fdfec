import type { Integration } from '../core/integration';
import { startReplayTimeline } from './timeline';

/** The replay integration as the core sees it: it brings the timeline's code, which the core starts. */
export interface ReplayIntegration extends Integration {
  readonly timeline_: typeof startReplayTimeline;
}

/**
 * Session replay (rrweb, loaded lazily after start-up) and the replay timeline the other integrations write to
 * (network, navigation and custom events, recipe steps), as `replay.*` configures them (timeline.ts). The core starts
 * the timeline before any integration's setup, so that every part holds the same one. Without this integration the
 * timeline keeps nothing, sessions say replay mode `off`, and none of its code is bundled.
 */
export function replayIntegration(): Integration {
  const integration: ReplayIntegration = { name: 'replay', timeline_: startReplayTimeline, setup() {} };
  return integration;
}
