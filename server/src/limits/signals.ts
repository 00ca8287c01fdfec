import { INGEST_LIMITS } from '../ingest/limits';

/**
 * What ingest limits count, one signal at a time (docs/governance.md, "Limits"). Record signals count records; replay
 * sessions count replays started (a chunk with seq 0); replay bytes count a chunk request's body bytes.
 */
export const LIMIT_SIGNALS = ['spans', 'logs', 'metrics', 'replay_sessions', 'replay_bytes', 'recipes'] as const;
export type LimitSignal = (typeof LIMIT_SIGNALS)[number];

/** What one unit of each signal is, for messages, `--help` and the console. */
export const UNIT_TEXT: Record<LimitSignal, string> = {
  spans: 'spans',
  logs: 'log records',
  metrics: 'metric data points',
  replay_sessions: 'replays started',
  replay_bytes: 'replay bytes',
  recipes: 'recipe steps',
};

/**
 * A signal's limits: a token bucket per ingest key (`rate` units a second, holding at most `burst`) and a quota per
 * project and UTC day (`daily`). 0 turns a limit off.
 */
export interface SignalLimits {
  rate: number;
  burst: number;
  daily: number;
}

export type LimitDefaults = Record<LimitSignal, SignalLimits>;

/**
 * The defaults: a key's rate is above what one server takes (about 16,000 spans a second on two cores, bench:ingest),
 * so a collector at full load is not throttled; the daily quota is what keeps a leaked public key from writing more
 * than a busy app's day into the disk (docs/governance.md).
 */
export const DEFAULT_LIMITS: LimitDefaults = {
  spans: { rate: 50_000, burst: 500_000, daily: 100_000_000 },
  logs: { rate: 50_000, burst: 500_000, daily: 100_000_000 },
  metrics: { rate: 100_000, burst: 1_000_000, daily: 200_000_000 },
  replay_sessions: { rate: 100, burst: 1_000, daily: 1_000_000 },
  replay_bytes: { rate: 20_000_000, burst: 200_000_000, daily: 200_000_000_000 },
  recipes: { rate: 2_000, burst: 20_000, daily: 20_000_000 },
};

/** The most a limit can be set to, so every count stays an exact JavaScript and int8 number. */
export const MAX_LIMIT = 1e15;

/**
 * The least a bucket must hold: one request of the largest size ingest accepts, else such a request could never pass.
 * `bodyLimit` is the server's body limit, which bounds a replay chunk's bytes.
 */
export function smallestBurst(signal: LimitSignal, bodyLimit: number): number {
  if (signal === 'replay_bytes') return bodyLimit;
  if (signal === 'replay_sessions') return 1;
  return INGEST_LIMITS.maxRecords;
}

/** Why a signal's limits cannot work, or undefined when they can: each request must fit the bucket. */
export function limitsProblem(
  signal: LimitSignal,
  { rate, burst }: SignalLimits,
  bodyLimit: number,
): string | undefined {
  if (rate === 0) return undefined;
  const least = Math.max(rate, smallestBurst(signal, bodyLimit));
  if (burst < least)
    return `burst must be at least ${least} (the rate, and the largest request ingest takes: ${smallestBurst(signal, bodyLimit)} ${UNIT_TEXT[signal]})`;
  return undefined;
}

/** `rate=10000,burst=100000,daily=100000000`, as the variables are written. */
export const describeLimits = ({ rate, burst, daily }: SignalLimits): string =>
  `rate=${rate},burst=${burst},daily=${daily}`;

/** `SVC_LIMIT_REPLAY_BYTES` for `replay_bytes`. */
export const limitVariable = (signal: LimitSignal): string => `SVC_LIMIT_${signal.toUpperCase()}`;

/** `--limit-replay-bytes` for `replay_bytes`. */
export const limitFlag = (signal: LimitSignal): string => `limit-${signal.replace('_', '-')}`;

/**
 * Reads `rate=2000,burst=20000,daily=5000000` (any of the three; the others keep `base`'s). Throws a message naming
 * the part that is wrong.
 */
export function parseLimits(text: string, base: SignalLimits): SignalLimits {
  const limits = { ...base };
  for (const part of text.split(',').map((p) => p.trim())) {
    const match = /^(rate|burst|daily)=(\d+)$/.exec(part);
    if (!match) throw new Error(`"${part}" is not rate=<n>, burst=<n> or daily=<n>`);
    const value = Number(match[2]);
    if (value > MAX_LIMIT) throw new Error(`${match[1]} must be at most ${MAX_LIMIT}`);
    limits[match[1] as keyof SignalLimits] = value;
  }
  return limits;
}
