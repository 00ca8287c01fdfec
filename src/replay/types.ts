import type { ResolvedReplayConfig } from '../config/types';
import type { EncodeChunkEvents } from './compression-worker';

/** The replay options the recorder needs; the rest of `replay.*` concerns buffering and sending. */
export type RecorderOptions = Pick<
  ResolvedReplayConfig,
  'blockClass' | 'maskTextClass' | 'maskAllInputs' | 'sampling' | 'workerUrl'
>;

/**
 * One recorded rrweb event. Declared here instead of re-exporting rrweb's `eventWithTime` so that the published
 * declarations do not depend on rrweb's type packages.
 */
export interface RecordedEvent {
  readonly type: number;
  readonly timestamp: number;
  readonly data: unknown;
}

/** Receives each event as rrweb emits it, already redacted (see docs/sdk-replay.md, "Privacy"). */
export type EmitRecordedEvent = (event: RecordedEvent) => void;

/**
 * Why the SDK stopped recording a page before it was asked to: the payload of the `svc.recording_stopped` timeline
 * event. `measured` and `limit` say which cap was hit and by how much (docs/sdk-replay.md, "Caps").
 */
export interface RecordingStopped {
  readonly reason: /** The document had more elements than the recorder snapshots (`measured` elements). */
    | 'dom_too_large'
    /** One batch of DOM changes was larger than the recorder processes (`measured` changes). */
    | 'mutation_limit'
    /** One recorded event was larger than ingest accepts (`measured` bytes of JSON). */
    | 'event_too_large'
    /** The recorder could not be loaded or rrweb failed to start. */
    | 'recorder_unavailable';
  readonly measured?: number;
  readonly limit?: number;
}

/** Told when the recorder stopped itself; it is already stopped when this is called. */
export type RecordingStoppedHandler = (detail: RecordingStopped) => void;

/** A running recording. Every method is safe to call at any time, also after the recording stopped. */
export interface Recording {
  /** Stops rrweb and removes its listeners and observers. */
  stop(): void;
  /**
   * Records a new full snapshot (a Meta and a FullSnapshot event) now, so that what follows plays back without the
   * events before it, e.g. after buffered events had to be dropped or a chunk was lost.
   */
  takeFullSnapshot(): void;
  /**
   * Records now the DOM changes the recorder holds back to coalesce them (docs/sdk-replay.md, "DOM changes"), so that
   * a flush sends everything the page showed up to this moment, and a timeline event added next comes after them.
   */
  flushDomChanges(): void;
  /**
   * Encodes a chunk's events on the recorder's compression worker (one per page, shared by every recording, and
   * still usable once this recording stopped). Absent where a recorder does not provide one: the timeline then
   * compresses on the main thread.
   */
  readonly encode?: EncodeChunkEvents;
}

/**
 * Starts recording the current document (once it has been parsed). Never throws: when recording cannot start or has
 * to stop on its own, `onStopped` is told why.
 */
export type StartRecording = (
  options: RecorderOptions,
  emit: EmitRecordedEvent,
  onStopped?: RecordingStoppedHandler,
) => Recording;
