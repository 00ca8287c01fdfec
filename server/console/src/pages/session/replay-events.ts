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
    if (event.type !== EventType.IncrementalSnapshot || data?.source !== MOUSE_INTERACTION || data.type !== CLICK) continue;
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
