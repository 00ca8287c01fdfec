import type { ResolvedReplayConfig } from '../config/types';

/** The replay options the recorder needs; the rest of `replay.*` concerns buffering and sending. */
export type RecorderOptions = Pick<ResolvedReplayConfig, 'blockClass' | 'maskTextClass' | 'maskAllInputs' | 'sampling'>;

/**
 * One recorded rrweb event. Declared here instead of re-exporting rrweb's `eventWithTime` so that the published
 * declarations do not depend on rrweb's type packages.
 */
export interface RecordedEvent {
  readonly type: number;
  readonly timestamp: number;
  readonly data: unknown;
}

/** Receives each event as rrweb emits it; `isCheckout` marks the start of a new full snapshot. */
export type EmitRecordedEvent = (event: RecordedEvent, isCheckout?: boolean) => void;

/** Stops the recording and removes rrweb's listeners and observers. Safe to call more than once. */
export type StopRecording = () => void;

/**
 * Starts recording the current document. Returns `undefined` when rrweb could not start (no DOM, or rrweb failed
 * internally), so the caller knows there is nothing to stop and no replay to send.
 */
export type StartRecording = (options: RecorderOptions, emit: EmitRecordedEvent) => StopRecording | undefined;
