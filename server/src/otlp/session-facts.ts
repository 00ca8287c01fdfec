import { parseUserAgent, type ClientInfo } from '../sessions/user-agent';
import type { PlainAttributes, ResourceInfo } from './values';

/** How the SDK sampled a session's replay (`svc.replay.mode`). */
export const REPLAY_MODES = ['full', 'on_error', 'off'] as const;
export type ReplayMode = (typeof REPLAY_MODES)[number];

/** A custom session attribute value as indexed (`session.attributes.<key>`). */
export type SessionAttributeValue = string | number | boolean;

/**
 * Bounds of what a session record indexes; anything beyond is ignored, never refused (the record itself is stored
 * whole as usual). Keys are limited to a charset every query path can name without quoting.
 */
export const SESSION_FACT_LIMITS = {
  maxAttributes: 32,
  maxKeyChars: 64,
  maxValueChars: 256,
  maxUserChars: 256,
  maxPages: 50,
  maxPathChars: 512,
} as const;
export const ATTRIBUTE_KEY = /^[A-Za-z0-9_.:-]{1,64}$/;
const ATTRIBUTE_PREFIX = 'session.attributes.';

/**
 * What the records of one batch say about one session: the latest user and attributes seen, its sampling, the app's
 * environment and release, the browser, and the pages visited (paths, earliest first).
 */
export interface SessionFacts {
  sessionId: string;
  user?: { timeMs: number; id: string; email: string | null; name: string | null };
  attributes?: { timeMs: number; values: Record<string, SessionAttributeValue> };
  replayMode?: ReplayMode;
  sampleRate?: number;
  env?: string;
  release?: string;
  client?: ClientInfo;
  /** Distinct page paths in the order of their first record's time, at most {@link SESSION_FACT_LIMITS}.maxPages. */
  pages?: string[];
  /** Time of the record that showed `pages[0]`, the batch's entry page. */
  entryMs?: number;
  /** The Playwright test the session was recorded in (@svc/playwright's `test.*` resource attributes). */
  test?: SessionTest;
}

/** A session's test: run id, Playwright testId and retry, with the test's title path (joined ' > ') and file when sent. */
export interface SessionTest {
  runId: string;
  testId: string;
  retry: number | null;
  title: string | null;
  file: string | null;
}

/** The sampling decision a resource carries (`svc.sample_rate`, `svc.replay.mode`); malformed values are ignored. */
export interface Sampling {
  replayMode?: ReplayMode;
  sampleRate?: number;
}

export function samplingOf(resource: PlainAttributes): Sampling | undefined {
  const rate = resource['svc.sample_rate'];
  const mode = resource['svc.replay.mode'];
  const sampling: Sampling = {};
  if (typeof rate === 'number' && rate > 0 && rate <= 1) sampling.sampleRate = rate;
  if (typeof mode === 'string' && (REPLAY_MODES as readonly string[]).includes(mode))
    sampling.replayMode = mode as ReplayMode;
  return sampling.sampleRate === undefined && sampling.replayMode === undefined ? undefined : sampling;
}

/** A user id, name or e-mail as a session keeps it: non-empty text of bounded length, else null. */
export const boundedText = (v: unknown): string | null =>
  typeof v === 'string' && v !== '' && v.length <= SESSION_FACT_LIMITS.maxUserChars ? v : null;

/** Longest test title or file a session keeps; the test's own record (test-runs) has the whole of them. */
const MAX_TEST_TEXT = 1024;
const testText = (v: unknown): string | null =>
  typeof v === 'string' && v !== '' && v.length <= MAX_TEST_TEXT ? v : null;

/** `test.retry` as the SDK sends it (an int, which OTLP/JSON may carry as decimal text); null when absent or malformed. */
function retryOf(v: unknown): number | null {
  const n = typeof v === 'string' && /^\d{1,4}$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= 1000 ? n : null;
}

/** The test a resource names: `test.run.id` and `test.id` both required (bounded like user ids); undefined otherwise. */
export function testOf(resource: PlainAttributes): SessionTest | undefined {
  const runId = boundedText(resource['test.run.id']);
  const testId = boundedText(resource['test.id']);
  if (runId === null || testId === null) return undefined;
  return {
    runId,
    testId,
    retry: retryOf(resource['test.retry']),
    title: testText(resource['test.title']),
    file: testText(resource['test.file']),
  };
}

/** A page's path, without query or fragment (they can carry personal data); null when it is not one or is too long. */
export function boundedPath(path: string): string | null {
  const end = path.search(/[?#]/);
  const bare = end === -1 ? path : path.slice(0, end);
  return bare.startsWith('/') && bare.length <= SESSION_FACT_LIMITS.maxPathChars ? bare : null;
}

/** The path of an absolute http(s) URL, as the URL parser normalizes it (percent-encoded). */
export function pathOfUrl(url: unknown): string | null {
  if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) return null;
  try {
    return boundedPath(new URL(url).pathname);
  } catch {
    return null;
  }
}

const NAVIGATION = 'Navigation: ';

/**
 * The pages a span shows the user on: `url.full` of a page load (`documentLoad`) or of an interaction (a span with
 * `event_type`), and for an interaction that changed the route (named `Navigation: <path>`), that path too. Other spans'
 * `url.full` (fetch, XHR, resources) is a request, not a page.
 */
export function spanPages(name: string, attributes: PlainAttributes): string[] {
  if (name !== 'documentLoad' && attributes['event_type'] === undefined) return [];
  const pages = [pathOfUrl(attributes['url.full'])];
  if (name.startsWith(NAVIGATION)) pages.push(boundedPath(name.slice(NAVIGATION.length)));
  return pages.filter((p): p is string => p !== null);
}

/** The page of a metric point: `url.path`, which the SDK puts on Web Vitals points. */
export function pointPages(attributes: PlainAttributes): string[] {
  const path = attributes['url.path'];
  const page = typeof path === 'string' ? boundedPath(path) : null;
  return page === null ? [] : [page];
}

/** `session.attributes.*` of one record, bounded; undefined when it has none. */
function attributesOf(attributes: PlainAttributes): Record<string, SessionAttributeValue> | undefined {
  let out: Record<string, SessionAttributeValue> | undefined;
  let count = 0;
  for (const name in attributes) {
    if (!name.startsWith(ATTRIBUTE_PREFIX)) continue;
    const key = name.slice(ATTRIBUTE_PREFIX.length);
    const value = attributes[name];
    const ok =
      typeof value === 'boolean' ||
      (typeof value === 'number' && Number.isFinite(value)) ||
      (typeof value === 'string' && value.length <= SESSION_FACT_LIMITS.maxValueChars);
    if (!ok || !ATTRIBUTE_KEY.test(key) || count === SESSION_FACT_LIMITS.maxAttributes) continue;
    (out ??= {})[key] = value as SessionAttributeValue;
    count += 1;
  }
  return out;
}

/**
 * Gathers, while a batch is normalized, one {@link SessionFacts} per session: so the writer updates each session record
 * once per batch, not once per record. Within a batch the record with the latest time wins, as across batches.
 */
export class SessionFactsCollector {
  private readonly facts = new Map<string, SessionFacts>();
  /** Page paths per session with the time of the first record that showed each. */
  private readonly pages = new Map<string, Map<string, number>>();
  /** Parsed user agents: a batch repeats the same one on every resource. */
  private readonly clients = new Map<string, ClientInfo | null>();

  /**
   * One record's contribution. `pages` are the paths the record shows the user on (see spanPages and pointPages). The user agent is the record's `user_agent.original` (OpenTelemetry's
   * document-load instrumentation puts it on its span) or else the resource's (the svc SDK's).
   */
  note(
    sessionId: string | null,
    timeMs: number,
    attributes: PlainAttributes,
    resource: ResourceInfo,
    pages: readonly string[] = [],
  ): void {
    if (sessionId === null) return;
    const { sampling, test } = resource;
    const userId = boundedText(attributes['user.id']);
    const values = attributesOf(attributes);
    // The current semantic convention's name first, then the older one the svc SDK sends (as issues read it).
    const env =
      boundedText(resource.attributes['deployment.environment.name']) ??
      boundedText(resource.attributes['deployment.environment']);
    const release = boundedText(resource.attributes['service.version']);
    const client = this.clientOf(attributes['user_agent.original'] ?? resource.attributes['user_agent.original']);
    const nothing =
      userId === null &&
      values === undefined &&
      sampling === undefined &&
      env === null &&
      release === null &&
      client === null;
    if (nothing && pages.length === 0 && test === undefined) return;
    let f = this.facts.get(sessionId);
    if (!f) this.facts.set(sessionId, (f = { sessionId }));
    if (sampling) Object.assign(f, sampling);
    if (env !== null) f.env = env;
    if (release !== null) f.release = release;
    if (client !== null) f.client = client;
    if (test) f.test = test;
    if (userId !== null && (!f.user || timeMs >= f.user.timeMs)) {
      f.user = {
        timeMs,
        id: userId,
        email: boundedText(attributes['user.email']),
        name: boundedText(attributes['user.name']),
      };
    }
    if (values && (!f.attributes || timeMs >= f.attributes.timeMs)) f.attributes = { timeMs, values };
    for (const page of pages) {
      let seen = this.pages.get(sessionId);
      if (!seen) this.pages.set(sessionId, (seen = new Map()));
      const first = seen.get(page);
      if (first === undefined || timeMs < first) seen.set(page, timeMs);
    }
  }

  private clientOf(ua: unknown): ClientInfo | null {
    if (typeof ua !== 'string') return null;
    let client = this.clients.get(ua);
    if (client === undefined) this.clients.set(ua, (client = parseUserAgent(ua)));
    return client;
  }

  list(): SessionFacts[] | undefined {
    for (const [sessionId, seen] of this.pages) {
      const ordered = [...seen].sort((a, b) => a[1] - b[1]).slice(0, SESSION_FACT_LIMITS.maxPages);
      const f = this.facts.get(sessionId)!;
      f.pages = ordered.map(([path]) => path);
      f.entryMs = ordered[0]![1];
    }
    return this.facts.size === 0 ? undefined : [...this.facts.values()];
  }
}
