import type { ReactNode } from 'react';
import { formatOffset } from './offset';

export const SPEEDS = [1, 2, 4, 8] as const;

/** Play/pause, speed, skip-inactivity and full screen, with the playback clock. */
export function Controls({
  playing,
  offset,
  total,
  speed,
  skipInactive,
  fullscreen,
  onPlay,
  onPause,
  onSpeed,
  onSkipInactive,
  onFullscreen,
  children,
}: {
  playing: boolean;
  offset: number;
  total: number;
  speed: number;
  skipInactive: boolean;
  fullscreen: boolean;
  onPlay: () => void;
  onPause: () => void;
  onSpeed: (speed: number) => void;
  onSkipInactive: (on: boolean) => void;
  /** Absent where the browser cannot show an element full screen. */
  onFullscreen?: () => void;
  /** More controls for the row (the moment's link). */
  children?: ReactNode;
}) {
  return (
    <div className="controls">
      <button type="button" className="primary play" onClick={playing ? onPause : onPlay}>
        {playing ? 'Pause' : 'Play'}
      </button>
      <span className="clock" aria-label="Playback time">
        {formatOffset(offset)} / {formatOffset(total)}
      </span>
      <div role="group" aria-label="Speed" className="segmented">
        {SPEEDS.map((s) => (
          <button key={s} type="button" aria-pressed={speed === s} onClick={() => onSpeed(s)}>
            {s}×
          </button>
        ))}
      </div>
      <label className="skip">
        <input type="checkbox" checked={skipInactive} onChange={(e) => onSkipInactive(e.target.checked)} /> Skip
        inactivity
      </label>
      {children}
      {onFullscreen && (
        <button type="button" className="fullscreen" onClick={onFullscreen}>
          {fullscreen ? 'Exit full screen' : 'Full screen'}
        </button>
      )}
    </div>
  );
}
