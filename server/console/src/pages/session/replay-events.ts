import type { ReplayEvent } from './types';

/** rrweb's event types and the parts of incremental snapshots read here (@rrweb/types). */
const EventType = { FullSnapshot: 2, IncrementalSnapshot: 3, Meta: 4, Custom: 5 } as const;
const MOUSE_INTERACTION = 2;
const CLICK = 2;

/** A rage click: at least this many clicks, each within RAGE_WINDOW_MS and RAGE_RADIUS_PX of the first. */
const RAGE_CLICKS = 3;
const RAGE_WINDOW_MS = 1000;
const RAGE_RADIUS_PX = 30;

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;

export interface PageVisit {
  at: number;
  url: string;
  /** Meta: a page load (or a new recording); navigation: the SDK saw the URL change in place. */
  kind: 'load' | 'navigation';
}

export interface Click {
  at: number;
  x: number;
  y: number;
}

export interface ClickMark {
  at: number;
  /** 1 for a plain click; ≥ RAGE_CLICKS for a rage click. */
  count: number;
}

/** The pages the replay shows, in order: rrweb Meta events' `href` and the SDK's `navigation` custom events. */
export function pageVisits(events: readonly ReplayEvent[]): PageVisit[] {
  const visits: PageVisit[] = [];
  for (const event of events) {
    const data = record(event.data);
    if (event.type === EventType.Meta && typeof data?.href === 'string') {
      visits.push({ at: event.timestamp, url: data.href, kind: 'load' });
    } else if (event.type === EventType.Custom && data?.tag === 'navigation') {
      const url = record(data.payload)?.url;
      if (typeof url === 'string') visits.push({ at: event.timestamp, url, kind: 'navigation' });
    }
  }
  return visits;
}

/** The page on screen at `at`: the last visit at or before it (the first one before any). */
export function urlAt(visits: readonly PageVisit[], at: number): string | undefined {
  let current = visits[0]?.url;
  for (const visit of visits) {
    if (visit.at > at) break;
    current = visit.url;
  }
  return current;
}

export function clicksOf(events: readonly ReplayEvent[]): Click[] {
  const clicks: Click[] = [];
  for (const event of events) {
    const data = record(event.data);
    if (event.type !== EventType.IncrementalSnapshot || data?.source !== MOUSE_INTERACTION || data.type !== CLICK)
      continue;
    clicks.push({ at: event.timestamp, x: Number(data.x ?? 0), y: Number(data.y ?? 0) });
  }
  return clicks;
}

/**
 * Clicks as timeline marks, a burst of RAGE_CLICKS or more close in time and place folded into one rage click.
 * Greedy from each first click: the burst is every later click within the window and radius of it.
 */
export function clickMarks(clicks: readonly Click[]): ClickMark[] {
  const marks: ClickMark[] = [];
  let i = 0;
  while (i < clicks.length) {
    const first = clicks[i]!;
    let j = i + 1;
    while (j < clicks.length) {
      const next = clicks[j]!;
      if (next.at - first.at > RAGE_WINDOW_MS || Math.hypot(next.x - first.x, next.y - first.y) > RAGE_RADIUS_PX) break;
      j++;
    }
    const burst = j - i;
    if (burst >= RAGE_CLICKS) {
      marks.push({ at: first.at, count: burst });
      i = j;
    } else {
      marks.push({ at: first.at, count: 1 });
      i++;
    }
  }
  return marks;
}

export const isRage = (mark: ClickMark) => mark.count >= RAGE_CLICKS;

/**
 * The earliest time that shows the recorded page: just after the first full snapshot, since a paused replayer draws
 * only the events strictly before its time.
 */
export function firstFrameAt(events: readonly ReplayEvent[]): number | undefined {
  const snapshot = events.find((e) => e.type === EventType.FullSnapshot);
  return snapshot && snapshot.timestamp + 1;
}

/** rrweb's incremental sources that a person causes: mouse moves and clicks, scrolls, resizes and typing (rrweb's own rule). */
const MOUSE_MOVE = 1;
const INPUT = 5;
const isUserInteraction = (event: ReplayEvent): boolean => {
  const source = record(event.data)?.source;
  return (
    event.type === EventType.IncrementalSnapshot &&
    typeof source === 'number' &&
    source >= MOUSE_MOVE &&
    source <= INPUT
  );
};

/** Stretches without interaction longer than this are inactive: rrweb's own threshold, so what is shaded is what "Skip inactivity" skips. */
export const INACTIVITY_MS = 10_000;

/**
 * The inactive stretches of a replay, `[from, to]` in epoch ms, as rrweb-player finds them: from an interaction (or the
 * start) to the next interaction more than INACTIVITY_MS later. Chunks may hold events out of order: times are sorted.
 */
export function inactivePeriods(events: readonly ReplayEvent[], thresholdMs = INACTIVITY_MS): Array<[number, number]> {
  if (events.length === 0) return [];
  const interactions = events
    .filter(isUserInteraction)
    .map((e) => e.timestamp)
    .sort((a, b) => a - b);
  const periods: Array<[number, number]> = [];
  let last = events.reduce((min, e) => Math.min(min, e.timestamp), Infinity);
  for (const at of interactions) {
    if (at - last > thresholdMs) periods.push([last, at]);
    last = at;
  }
  return periods;
}

/** The recorded page's viewport (the first Meta event's), whose shape the player takes. */
export function recordedViewport(events: readonly ReplayEvent[]): { width: number; height: number } | undefined {
  for (const event of events) {
    const data = record(event.data);
    if (
      event.type === EventType.Meta &&
      typeof data?.width === 'number' &&
      typeof data.height === 'number' &&
      data.width > 0 &&
      data.height > 0
    ) {
      return { width: data.width, height: data.height };
    }
  }
  return undefined;
}
