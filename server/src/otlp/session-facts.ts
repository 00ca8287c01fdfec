import type { PlainAttributes } from './values';

/** How the SDK sampled a session's replay (`svc.replay.mode`). */
export const REPLAY_MODES = ['full', 'on_error', 'off'] as const;
export type ReplayMode = (typeof REPLAY_MODES)[number];

/** A custom session attribute value as indexed (`session.attributes.<key>`). */
export type SessionAttributeValue = string | number | boolean;

/**
 * Bounds of what a session record indexes; anything beyond is ignored, never refused (the record itself is stored
 * whole as usual). Keys are limited to a charset every query path can name without quoting.
 */
export const SESSION_FACT_LIMITS = { maxAttributes: 32, maxKeyChars: 64, maxValueChars: 256, maxUserChars: 256 } as const;
export const ATTRIBUTE_KEY = /^[A-Za-z0-9_.:-]{1,64}$/;
const ATTRIBUTE_PREFIX = 'session.attributes.';

/** What the records of one batch say about one session: the latest user and attributes seen, and its sampling. */
export interface SessionFacts {
  sessionId: string;
  user?: { timeMs: number; id: string; email: string | null; name: string | null };
  attributes?: { timeMs: number; values: Record<string, SessionAttributeValue> };
  replayMode?: ReplayMode;
  sampleRate?: number;
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
  if (typeof mode === 'string' && (REPLAY_MODES as readonly string[]).includes(mode)) sampling.replayMode = mode as ReplayMode;
  return sampling.sampleRate === undefined && sampling.replayMode === undefined ? undefined : sampling;
}

const boundedText = (v: unknown): string | null => (typeof v === 'string' && v !== '' && v.length <= SESSION_FACT_LIMITS.maxUserChars ? v : null);

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

  note(sessionId: string | null, timeMs: number, attributes: PlainAttributes, sampling: Sampling | undefined): void {
    if (sessionId === null) return;
    const userId = boundedText(attributes['user.id']);
    const values = attributesOf(attributes);
    if (userId === null && values === undefined && sampling === undefined) return;
    let f = this.facts.get(sessionId);
    if (!f) this.facts.set(sessionId, (f = { sessionId }));
    if (sampling) Object.assign(f, sampling);
    if (userId !== null && (!f.user || timeMs >= f.user.timeMs)) {
      f.user = { timeMs, id: userId, email: boundedText(attributes['user.email']), name: boundedText(attributes['user.name']) };
    }
    if (values && (!f.attributes || timeMs >= f.attributes.timeMs)) f.attributes = { timeMs, values };
  }

  list(): SessionFacts[] | undefined {
    return this.facts.size === 0 ? undefined : [...this.facts.values()];
  }
}
