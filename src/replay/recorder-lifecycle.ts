import { REPLAY_EVENT_TAGS, RRWEB_CUSTOM_EVENT } from '../../wire/replay';
import type { DebugLog } from '../core/core';
import type { ReplayIdentity } from './chunk-buffer';
import type { RecordedEvent, Recording, RecorderOptions, RecordingStopped, StartRecording } from './types';

export interface RecorderLifecycle {
  /** Loads the recorder and records the current replay, unless it is stopped or replaced before it has started. */
  start_(): void;
  stop_(): void;
  /** Stops recording this page before it was asked to, with a `svc.recording_stopped` event saying why. */
  halt_(detail: RecordingStopped): void;
  /**
   * A new full snapshot: `now`, or soon, never from inside rrweb's emit (rrweb would snapshot in the middle of the
   * event it is emitting).
   */
  snapshot_(now?: boolean): void;
  /** Records now the DOM changes the recorder holds back (Recording.flushDomChanges). */
  dom_(): void;
}

/**
 * Starts and stops the recorder for one replay at a time. `current` is the replay being recorded: events of a
 * recorder started for an earlier one are not recorded. `encoder` is given the recorder's compression worker.
 */
export function createRecorderLifecycle(
  load: () => Promise<StartRecording>,
  options: RecorderOptions,
  debug: DebugLog,
  current: () => ReplayIdentity,
  record: (event: RecordedEvent) => void,
  encoder: { encode_?: Recording['encode'] },
): RecorderLifecycle {
  /** The recorder of the current replay was stopped, possibly while it was still starting. */
  let halted = false;
  let snapshotRequested = false;
  let recording: Recording | undefined;
  const recorder: RecorderLifecycle = {
    start_() {
      const identity = current();
      halted = false;
      load()
        .then((start) => {
          if (identity !== current() || halted) return;
          const started = start(
            options,
            (event) => {
              if (identity === current() && !halted) record(event);
            },
            (detail) => {
              if (identity === current()) recorder.halt_(detail);
            },
          );
          // Halted while rrweb emitted its first snapshot (an event too large to send): nothing more to record.
          if (!encoder.encode_) encoder.encode_ = started.encode;
          if (halted) started.stop();
          else recording = started;
        })
        .catch((error: unknown) => {
          debug.error('session replay could not start', error);
          if (identity === current() && !halted) recorder.halt_({ reason: 'recorder_unavailable' });
        });
    },
    stop_() {
      halted = true;
      recording?.stop();
      recording = undefined;
    },
    halt_(detail) {
      recorder.stop_();
      debug.warn(`session replay stopped (${detail.reason}); the other signals go on`);
      record({
        type: RRWEB_CUSTOM_EVENT,
        timestamp: Date.now(),
        data: { tag: REPLAY_EVENT_TAGS.recordingStopped, payload: detail },
      });
    },
    snapshot_(now) {
      if (now) recording?.takeFullSnapshot();
      else if (!snapshotRequested) {
        snapshotRequested = true;
        void Promise.resolve().then(() => {
          snapshotRequested = false;
          recording?.takeFullSnapshot();
        });
      }
    },
    dom_: () => recording?.flushDomChanges(),
  };
  return recorder;
}
