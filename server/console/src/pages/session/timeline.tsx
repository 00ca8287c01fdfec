import { formatOffset } from './offset';

export type MarkerKind = 'click' | 'rage' | 'error' | 'navigation';

export interface Marker {
  key: string;
  /** Epoch ms. */
  at: number;
  kind: MarkerKind;
  label: string;
}

/** Each kind's glyph: the marks differ in shape and text, not only in colour. */
const GLYPH: Record<MarkerKind, string> = { click: '●', rage: '✸', error: '!', navigation: '→' };
const KIND_NAME: Record<MarkerKind, string> = {
  click: 'Click',
  rage: 'Rage click',
  error: 'Error',
  navigation: 'Navigation',
};

/** Markers closer than this (percent of the scrubber) are stacked, so none hides another. */
const MIN_GAP_PCT = 2;
const MAX_LANES = 3;
/** A stacked marker stands this much above the one under it. */
const LANE_PX = 20;

/** Each marker's lane: the first lane whose last marker is far enough to its left (markers come sorted by time). */
function laneOf(positions: readonly number[]): number[] {
  const lastOnLane: number[] = [];
  return positions.map((p) => {
    let lane = lastOnLane.findIndex((last) => p - last >= MIN_GAP_PCT);
    if (lane === -1) lane = lastOnLane.length < MAX_LANES ? lastOnLane.length : MAX_LANES - 1;
    lastOnLane[lane] = p;
    return lane;
  });
}

/**
 * The replay's scrubber: a slider for the playback position on a track that shows how much has played, shades the
 * inactive stretches (what "Skip inactivity" skips) and carries a marker for each click, rage click, error and
 * navigation, on the track itself (a crowd is stacked above it). A marker is a button that seeks to its moment.
 */
export function Timeline({
  start,
  total,
  offset,
  markers,
  inactive,
  onSeek,
}: {
  start: number;
  total: number;
  offset: number;
  markers: readonly Marker[];
  /** Inactive stretches, epoch ms. */
  inactive: ReadonlyArray<readonly [number, number]>;
  onSeek: (offset: number) => void;
}) {
  const position = (at: number) => Math.min(100, Math.max(0, ((at - start) / Math.max(1, total)) * 100));
  const lanes = laneOf(markers.map((m) => position(m.at)));
  const stacked = Math.max(0, ...lanes);
  return (
    <div className="timeline" style={{ paddingTop: `${stacked * LANE_PX}px` }}>
      <div className="scrub">
        <div className="scrub-rail" aria-hidden="true">
          {inactive.map(([from, to]) => (
            <span
              key={from}
              className="scrub-inactive"
              style={{ left: `${position(from)}%`, width: `${position(to) - position(from)}%` }}
            />
          ))}
          <span className="scrub-played" style={{ width: `${position(start + offset)}%` }} />
        </div>
        <input
          type="range"
          className="scrubber"
          min={0}
          max={total}
          step={100}
          value={offset}
          aria-label="Playback position"
          aria-valuetext={`${formatOffset(offset)} of ${formatOffset(total)}`}
          onChange={(e) => onSeek(Number(e.target.value))}
        />
        <ul className="markers" aria-label="Timeline markers">
          {markers.map((m, i) => (
            <li key={m.key} style={{ left: `${position(m.at)}%`, bottom: `${lanes[i]! * LANE_PX}px` }}>
              <button
                type="button"
                className={`marker marker-${m.kind}`}
                data-kind={m.kind}
                aria-label={`${KIND_NAME[m.kind]} at ${formatOffset(m.at - start)}: ${m.label}`}
                title={`${KIND_NAME[m.kind]} at ${formatOffset(m.at - start)}: ${m.label}`}
                onClick={() => onSeek(m.at - start)}
              >
                {GLYPH[m.kind]}
              </button>
            </li>
          ))}
        </ul>
      </div>
      <p className="legend hint" aria-hidden="true">
        {(Object.keys(GLYPH) as MarkerKind[]).map((k) => (
          <span key={k} className={`legend-item marker-${k}`}>
            {GLYPH[k]} {KIND_NAME[k]}
          </span>
        ))}
        <span className="legend-item">
          <span className="legend-inactive" /> Inactive
        </span>
      </p>
      {inactive.length > 0 && (
        <p className="visually-hidden">
          Inactive:{' '}
          {inactive.map(([from, to]) => `${formatOffset(from - start)} to ${formatOffset(to - start)}`).join(', ')}.
        </p>
      )}
    </div>
  );
}
