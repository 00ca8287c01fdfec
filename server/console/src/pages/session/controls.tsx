import { formatOffset } from './offset';

export const SPEEDS = [1, 2, 4, 8] as const;

/** Play/pause, speed and skip-inactivity, with the playback clock. */
export function Controls({
  playing,
  offset,
  total,
  speed,
  skipInactive,
  onPlay,
  onPause,
  onSpeed,
  onSkipInactive,
}: {
  playing: boolean;
  offset: number;
  total: number;
  speed: number;
  skipInactive: boolean;
  onPlay: () => void;
  onPause: () => void;
  onSpeed: (speed: number) => void;
  onSkipInactive: (on: boolean) => void;
}) {
  return (
    <div className="controls">
      <button type="button" className="primary play" onClick={playing ? onPause : onPlay}>
        {playing ? 'Pause' : 'Play'}
      </button>
      <span className="clock" aria-label="Playback time">
        {formatOffset(offset)} / {formatOffset(total)}
      </span>
      <div role="group" aria-label="Speed" className="speeds">
        {SPEEDS.map((s) => (
          <button key={s} type="button" aria-pressed={speed === s} onClick={() => onSpeed(s)}>
            {s}×
          </button>
        ))}
      </div>
      <label className="skip">
        <input type="checkbox" checked={skipInactive} onChange={(e) => onSkipInactive(e.target.checked)} /> Skip inactivity
      </label>
    </div>
  );
}
