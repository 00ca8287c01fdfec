import type { ResolvedConfig } from '../config/types';

/** How a session's replay is recorded: in full, kept in memory and sent only on an error, or not at all. */
export type ReplayMode = 'full' | 'on_error' | 'off';

/** The sampling decision of one session. */
export interface SessionSampling {
  /** The session sends telemetry at all (`sampleRate`). */
  readonly sampled: boolean;
  readonly replay: ReplayMode;
}

/**
 * A share in [0, 1) read from the `part`-th 8 hex digits of the session id. Session ids are random (crypto), so the
 * decision needs no storage of its own: every tab and page load of a session reads the same id and decides the same.
 */
const share = (sessionId: string, part: number): number =>
  (parseInt(sessionId.slice(part * 8, part * 8 + 8), 16) || 0) / 4294967296;

/**
 * The sampling decision of a session: whether it sends anything (`sampleRate`), then whether its replay is recorded
 * in full (`replay.sampleRate`) or, failing that, buffered and sent on an error (`replay.onErrorSampleRate`). Each
 * decision reads its own digits of the id, so the rates are independent.
 */
export function sessionSampling(
  sessionId: string,
  config: Pick<ResolvedConfig, 'sampleRate' | 'replay'>,
): SessionSampling {
  const { replay } = config;
  const sampled = share(sessionId, 0) < config.sampleRate;
  let mode: ReplayMode = 'off';
  if (sampled && replay.enabled) {
    if (share(sessionId, 1) < replay.sampleRate) mode = 'full';
    else if (share(sessionId, 2) < replay.onErrorSampleRate) mode = 'on_error';
  }
  return { sampled, replay: mode };
}
