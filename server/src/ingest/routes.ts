import type { Context, MiddlewareHandler } from 'hono';
import { INGEST_PATHS } from '../../../wire/paths';
import type { TelemetryTable } from '../db/schema';
import { ingestAuth, presentedIngestKey } from '../http/auth';
import { bodyFormat, parseJson, readBody, type BodyFormat } from '../http/body';
import { ingestCors, ingestOriginGuard } from '../http/cors';
import type { AppEnv, Services } from '../http/env';
import { badRequest } from '../http/errors';
import { createRouter, documentedRoute } from '../http/openapi';
import { demandsOf } from '../limits/demands';
import type { LimitSignal } from '../limits/signals';
import { normalizeLogs } from '../otlp/logs';
import { normalizeMetrics } from '../otlp/metrics';
import { exceedsStructures } from '../json/structures';
import {
  decodeOtlpProtobuf,
  encodeOtlpProtobufResponse,
  ProtobufDecodeError,
  ProtobufStructureLimitError,
  type OtlpSignal,
} from '../otlp/protobuf';
import type { PendingBatch } from '../otlp/records';
import { normalizeTraces } from '../otlp/traces';
import { INGEST_LIMITS, limitExceeded } from './limits';
import type { Refusal } from './refusals/counter';
import { refusalLogger } from './refusals/log';
import { NO_PROJECT } from './refusals/tables';
import { observeRefusals } from './refusals/observe';
import { normalizeRecipes, normalizeReplayChunk } from './replay';
import {
  otlpRoute,
  RecipeBatchSchema,
  RECIPES_EXAMPLE,
  REPLAY_CHUNK_EXAMPLE,
  replayRoute,
  ReplayChunkSchema,
} from './schemas';
import { storeBatch } from './store';

const OTLP: Record<OtlpSignal, { path: string; normalize: (body: unknown, receivedMs: number) => PendingBatch }> = {
  traces: { path: INGEST_PATHS.traces, normalize: normalizeTraces },
  logs: { path: INGEST_PATHS.logs, normalize: normalizeLogs },
  metrics: { path: INGEST_PATHS.metrics, normalize: normalizeMetrics },
};

/**
 * Stores a decoded request within the limits (docs/governance.md): the key's buckets, the project's quotas and any
 * spike throttle take its units first, and refuse it whole with a 429 naming the limit; storing counts them as used.
 */
async function storeLimited(c: Context<AppEnv>, services: Services, batch: PendingBatch, bodyBytes: number) {
  const caller = c.get('caller');
  const presented = presentedIngestKey(c) ?? '';
  const admission = await services.limits.guard.admit(caller, presented, demandsOf(batch, bodyBytes));
  const result = await storeBatch(services, caller.projectId, batch);
  admission.stored();
  return result;
}

/** The signal of each ingest path, for the usage page's refusals. */
const SIGNAL_OF_PATH = new Map<string, LimitSignal>([
  [INGEST_PATHS.traces, 'spans'],
  [INGEST_PATHS.logs, 'logs'],
  [INGEST_PATHS.metrics, 'metrics'],
  [INGEST_PATHS.replayChunk, 'replay_bytes'],
  [INGEST_PATHS.replayRecipes, 'recipes'],
]);

/** Counts a refusal for anything but a limit (whose units are counted as throttled) in the project's usage. */
function countRefused(services: Services, refusal: Refusal): void {
  const signal = SIGNAL_OF_PATH.get(refusal.example.path);
  if (!signal || refusal.projectId === NO_PROJECT || refusal.status === 429) return;
  services.limits.usage.add(refusal.projectId, signal, { refused: 1 }, refusal.atMs);
}

/** Longest an early refusal is held before it is answered. */
const TARPIT_MS = 1_000;

/**
 * Refuses a request before its key is checked or its body read, when the key's bucket for the path's signal was found
 * empty and has not refilled: the caller that emptied it is set, so the refusal is counted under its project without
 * a lookup. The answer is held until the bucket refills, at most a second: a client sending without waiting for
 * Retry-After then makes at most one request a second per connection, so a flood cannot take the event loop from
 * other keys (bench:ingest's flood phase). A key revoked meanwhile gets this 429 until the bucket refills, then its 401.
 */
function earlyRefusal(services: Services): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const signal = SIGNAL_OF_PATH.get(c.req.path);
    const presented = presentedIngestKey(c);
    const early = signal && presented ? await services.limits.guard.refuseEarly(presented, signal) : undefined;
    if (!early) return next();
    c.set('caller', early.caller);
    const waitMs = Math.min(TARPIT_MS, (early.refusal.retryAfterSeconds ?? 1) * 1000);
    await new Promise((resolve) => setTimeout(resolve, waitMs).unref());
    throw early.refusal;
  };
}

/** Reads, decompresses and decodes a body in one of the `accepted` formats into a plain object. */
async function decodeBody(c: Context, services: Services, accepted: readonly BodyFormat[], signal?: OtlpSignal) {
  const format = bodyFormat(c, accepted);
  const bytes = await readBody(c, services.bodyLimit);
  const { maxStructures } = INGEST_LIMITS;
  const tooManyStructures = () =>
    limitExceeded('maxStructures', 'the body holds more objects and arrays (protobuf: messages)');
  if (format === 'json') {
    if (exceedsStructures(bytes, maxStructures)) throw tooManyStructures();
    return { format, body: parseJson(bytes), bytes: bytes.length };
  }
  try {
    return { format, body: decodeOtlpProtobuf(signal!, bytes, maxStructures), bytes: bytes.length };
  } catch (err) {
    if (err instanceof ProtobufStructureLimitError) throw tooManyStructures();
    if (err instanceof ProtobufDecodeError)
      throw badRequest(`body is not a valid OTLP protobuf message: ${err.message}`);
    throw err;
  }
}

/**
 * Ingest endpoints: OTLP/HTTP (JSON and protobuf, gzip) and the replay chunk and recipe endpoints. Their bodies keep
 * ingest's own readers (decodeBody and the normalizers), the fast path bench:ingest measures; their entries in the
 * document come from ./schemas.
 */
export function ingestRoutes(services: Services, corsOrigins: '*' | readonly string[]) {
  const app = createRouter();
  const auth = ingestAuth(services);
  const logRefusal = refusalLogger(services.log);
  // Outermost, so it sees every refusal, the key check's and the origin guard's included.
  const refusals = observeRefusals(services, (refusal) => {
    services.refusals.record(refusal);
    logRefusal(refusal);
    countRefused(services, refusal);
  });
  // Whole prefixes, not just the five paths, so a mistyped endpoint's 404 is readable by the page rather than looking
  // like a network error (which the SDK would retry).
  for (const prefix of ['/otlp/*', '/ingest/*'])
    app.use(prefix, refusals, ingestCors(corsOrigins), ingestOriginGuard(corsOrigins), earlyRefusal(services));

  for (const [signal, { path, normalize }] of Object.entries(OTLP) as [OtlpSignal, (typeof OTLP)[OtlpSignal]][]) {
    documentedRoute(
      app,
      otlpRoute(signal, path),
      async (c) => {
        const { format, body, bytes } = await decodeBody(c, services, ['json', 'protobuf'], signal);
        await storeLimited(c, services, normalize(body, services.clock.now()), bytes);
        // A fully accepted export: partial_success left empty, per the OTLP/HTTP specification.
        if (format === 'protobuf') {
          return c.body(encodeOtlpProtobufResponse(signal) as Uint8Array<ArrayBuffer>, 200, {
            'content-type': 'application/x-protobuf',
          });
        }
        return c.json({ partialSuccess: {} });
      },
      [auth],
    );
  }

  const replay = (
    route: ReturnType<typeof replayRoute>,
    normalize: (body: unknown) => PendingBatch<TelemetryTable> | Promise<PendingBatch<TelemetryTable>>,
  ) =>
    documentedRoute(
      app,
      route,
      async (c) => {
        const { body, bytes } = await decodeBody(c, services, ['json']);
        const result = await storeLimited(c, services, await normalize(body), bytes);
        return c.json({ accepted: result.stored, duplicates: result.duplicates });
      },
      [auth],
    );
  replay(
    replayRoute(INGEST_PATHS.replayChunk, 'Store one session replay chunk', ReplayChunkSchema, REPLAY_CHUNK_EXAMPLE),
    normalizeReplayChunk,
  );
  replay(
    replayRoute(INGEST_PATHS.replayRecipes, 'Store request recipe steps', RecipeBatchSchema, RECIPES_EXAMPLE),
    normalizeRecipes,
  );
  return app;
}
