import { bodyText, logTime } from './logs';
import { clickMarks, clicksOf, isRage, type PageVisit } from './replay-events';
import type { Marker } from './timeline';
import type { LogRow, ReplayEvent } from './types';

/** The timeline's markers: clicks (bursts folded into rage clicks), errors, and navigations after the first page. */
export function markersOf(
  events: readonly ReplayEvent[],
  visits: readonly PageVisit[],
  errors: readonly LogRow[],
): Marker[] {
  const clicks: Marker[] = clickMarks(clicksOf(events)).map((m) => ({
    key: `click-${m.at}`,
    at: m.at,
    kind: isRage(m) ? 'rage' : 'click',
    label: isRage(m) ? `${m.count} clicks within a second` : 'click',
  }));
  const failures: Marker[] = errors.map((log) => ({
    key: `error-${log.id}`,
    at: logTime(log),
    kind: 'error',
    label: bodyText(log.body),
  }));
  const navigations: Marker[] = visits
    .slice(1)
    .map((v, i) => ({ key: `nav-${i}-${v.at}`, at: v.at, kind: 'navigation', label: v.url }));
  return [...clicks, ...failures, ...navigations].sort((a, b) => a.at - b.at);
}
