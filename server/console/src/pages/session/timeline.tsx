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
const KIND_NAME: Record<MarkerKind, string> = { click: 'Click', rage: 'Rage click', error: 'Error', navigation: 'Navigation' };

/** Markers closer than this (percent of the timeline) go on separate lanes, so none hides another. */
const MIN_GAP_PCT = 3;
const MAX_LANES = 3;
const LANE_PX = 24;

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
 * The replay's timeline: a slider for the playback position and, above it, a marker for each click, rage click,
 * error and navigation. A marker is a button that seeks to its moment.
 */
export function Timeline({
  start,
  total,
  offset,
  markers,
  onSeek,
}: {
  start: number;
  total: number;
  offset: number;
  markers: readonly Marker[];
  onSeek: (offset: number) => void;
}) {
  const position = (at: number) => Math.min(100, Math.max(0, ((at - start) / Math.max(1, total)) * 100));
  const lanes = laneOf(markers.map((m) => position(m.at)));
  const laneCount = Math.max(1, ...lanes.map((l) => l + 1));
  return (
    <div className="timeline" style={{ paddingTop: `${laneCount * LANE_PX + 2}px` }}>
      <ul className="markers" aria-label="Timeline markers" style={{ height: `${laneCount * LANE_PX}px` }}>
        {markers.map((m, i) => (
          <li key={m.key} style={{ left: `${position(m.at)}%`, top: `${lanes[i]! * LANE_PX}px` }}>
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
      <p className="legend hint" aria-hidden="true">
        {(Object.keys(GLYPH) as MarkerKind[]).map((k) => (
          <span key={k} className={`legend-item marker-${k}`}>
            {GLYPH[k]} {KIND_NAME[k]}
          </span>
        ))}
      </p>
    </div>
  );
}
