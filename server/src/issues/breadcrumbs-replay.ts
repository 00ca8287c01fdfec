import type { Kysely } from 'kysely';
import { REPLAY_EVENT_TAGS } from '../../../wire/replay';
import type { Database } from '../db/schema';
import { DomMirror, type MirrorNode } from '../replay/export/dom-mirror';
import { originOf, relativeUrl } from '../replay/export/recorded-url';
import {
  EventType,
  IncrementalSource,
  isId,
  isObject,
  MouseInteraction,
  NodeType,
  readEvent,
  type RecordedEvent,
} from '../replay/export/rrweb';
import { describeElement, locateClick } from '../replay/export/selector';
import type { TimedBreadcrumb, TimeWindow } from './breadcrumbs';
import { replayRuns, type DecodedChunk } from './breadcrumbs-replay-chunks';

export interface ReplayCrumbs {
  crumbs: TimedBreadcrumb[];
  /** The page the session showed at the end of the window, when its replay says. */
  pageUrl: string | undefined;
}

/** One rrweb event, and whether it is a page load (not a snapshot rrweb took of a page already loaded). */
interface Moment {
  event: RecordedEvent;
  pageLoad: boolean;
}

/**
 * Clicks (on the element the rebuilt DOM says they hit), page loads and URL changes of the session's replays in
 * `window`, the `max` newest of them.
 */
export async function replayBreadcrumbs(
  db: Kysely<Database>,
  q: { projectId: string; sessionId: string; window: TimeWindow; max: number },
): Promise<ReplayCrumbs> {
  const runs = await replayRuns(db, q.projectId, q.sessionId, q.window);
  // Describing a click searches the page's DOM: only the clicks that can be among the newest `max` are described.
  const stamps = runs.flatMap((run) =>
    [...moments(run)].filter((m) => crumbKind(m) && within(q.window, m.event)).map((m) => m.event.timestamp),
  );
  const cutoffMs = stamps.sort((a, b) => b - a)[q.max - 1] ?? -Infinity;
  const reader = new TimelineReader({ fromMs: Math.max(q.window.fromMs, cutoffMs), toMs: q.window.toMs });
  for (const run of runs) reader.read(run);
  return { crumbs: reader.crumbs, pageUrl: reader.pageUrl };
}

/** Rebuilds each replay's DOM as it plays and turns the events of the window into breadcrumbs. */
class TimelineReader {
  readonly crumbs: TimedBreadcrumb[] = [];
  pageUrl: string | undefined;
  private mirror = new DomMirror();

  constructor(private readonly window: TimeWindow) {}

  read(run: readonly DecodedChunk[]): void {
    this.mirror = new DomMirror();
    for (const moment of moments(run)) {
      if (moment.event.timestamp > this.window.toMs) return;
      this.push(moment);
    }
  }

  private push(moment: Moment): void {
    const { type, data, timestamp } = moment.event;
    if (type === EventType.FullSnapshot) this.mirror.load(data.node);
    else if (type === EventType.IncrementalSnapshot && data.source === IncrementalSource.Mutation)
      this.mirror.applyMutation(data);
    const url = pageUrlOf(moment.event);
    if (url !== undefined) this.pageUrl = url;
    const kind = crumbKind(moment);
    if (kind === undefined || !within(this.window, moment.event)) return;
    if (kind === 'click') this.crumbs.push(this.click(timestamp, data.id as number));
    else if (url !== undefined) this.crumbs.push(navigation(moment, url));
  }

  private click(atMs: number, id: number): TimedBreadcrumb {
    const element = this.clickedElement(id);
    if (element === undefined)
      return { atMs, kind: 'click', message: 'click on an element the recording does not hold', data: { node_id: id } };
    const description = describeElement(element);
    return { atMs, kind: 'click', message: `click on ${description}`, data: { node_id: id, element: description } };
  }

  /** The button or link a click was meant for (as the Playwright export locates it), else the element it hit. */
  private clickedElement(id: number): MirrorNode | undefined {
    const located = locateClick(this.mirror, id);
    if ('element' in located) return located.element;
    const node = this.mirror.get(id);
    return node?.type === NodeType.Element ? node : node?.parent;
  }
}

function navigation(moment: Moment, url: string): TimedBreadcrumb {
  const { timestamp, data } = moment.event;
  const path = relativeUrl(url, originOf(url) ?? '');
  if (moment.pageLoad)
    return { atMs: timestamp, kind: 'navigation', message: `loaded ${path}`, data: { url, trigger: 'load' } };
  const payload = data.payload as Record<string, unknown>;
  const facts = { url, title: text(payload.title), trigger: text(payload.trigger) };
  return { atMs: timestamp, kind: 'navigation', message: `navigated to ${path}`, data: facts };
}

/** The events of a replay's chunks, in order, each with whether it is the replay's page load. */
function* moments(run: readonly DecodedChunk[]): Generator<Moment> {
  for (const chunk of run) {
    // rrweb repeats Meta with every full snapshot it takes: only the first of a replay's first chunk is a page load.
    let loadDue = chunk.seq === 0;
    for (const raw of chunk.events) {
      const event = readEvent(raw);
      if (event === undefined) continue;
      const pageLoad = loadDue && event.type === EventType.Meta;
      if (pageLoad) loadDue = false;
      yield { event, pageLoad };
    }
  }
}

function crumbKind({ event, pageLoad }: Moment): 'click' | 'navigation' | undefined {
  const { type, data } = event;
  if (
    type === EventType.IncrementalSnapshot &&
    data.source === IncrementalSource.MouseInteraction &&
    data.type === MouseInteraction.Click
  ) {
    return isId(data.id) ? 'click' : undefined;
  }
  const changedPage = pageLoad || type === EventType.Custom;
  return changedPage && pageUrlOf(event) !== undefined ? 'navigation' : undefined;
}

/** The page address an event gives: a Meta event's `href`, a navigation event's `url`. */
function pageUrlOf({ type, data }: RecordedEvent): string | undefined {
  if (type === EventType.Meta) return typeof data.href === 'string' ? data.href : undefined;
  if (type !== EventType.Custom || data.tag !== REPLAY_EVENT_TAGS.navigation || !isObject(data.payload))
    return undefined;
  return typeof data.payload.url === 'string' ? data.payload.url : undefined;
}

const within = (window: TimeWindow, event: RecordedEvent): boolean =>
  event.timestamp >= window.fromMs && event.timestamp <= window.toMs;

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
