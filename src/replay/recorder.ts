import { record } from '@rrweb/record';
import type { EmitRecordedEvent, RecorderOptions, StopRecording } from './types';

/**
 * Starts rrweb with the resolved replay options. This module is only ever reached through `loadRecorder()`'s
 * dynamic import, so rrweb stays out of the initial bundle of every application that installs the SDK.
 */
export function startRecording(options: RecorderOptions, emit: EmitRecordedEvent): StopRecording | undefined {
  // rrweb's type parameter only types what `emit` receives; our RecordedEvent is the subset of eventWithTime we use.
  const stopRrweb = record<Parameters<EmitRecordedEvent>[0]>({
    emit,
    blockClass: options.blockClass,
    maskTextClass: options.maskTextClass,
    maskAllInputs: options.maskAllInputs,
    sampling: {
      mousemove: options.sampling.mousemove,
      scroll: options.sampling.scroll,
      input: options.sampling.input,
    },
  });
  if (stopRrweb === undefined) return undefined;
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    try {
      stopRrweb();
    } catch {
      // Stopping runs during shutdown and page hide, when part of the DOM may already be gone; a failure there
      // must not escape into the host application.
    }
  };
}
