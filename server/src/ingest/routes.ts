import type { Context } from 'hono';
import { INGEST_PATHS } from '../../../wire/paths';
import type { TelemetryTable } from '../db/schema';
import { ingestAuth } from '../http/auth';
import { bodyFormat, parseJson, readBody, type BodyFormat } from '../http/body';
import { ingestCors, ingestOriginGuard } from '../http/cors';
import type { Services } from '../http/env';
import { badRequest } from '../http/errors';
import { createRouter, documentedRoute } from '../http/openapi';
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
import { refusalLogger } from './refusals/log';
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

/** Reads, decompresses and decodes a body in one of the `accepted` formats into a plain object. */
async function decodeBody(c: Context, services: Services, accepted: readonly BodyFormat[], signal?: OtlpSignal) {
  const format = bodyFormat(c, accepted);
  const bytes = await readBody(c, services.bodyLimit);
  const { maxStructures } = INGEST_LIMITS;
  const tooManyStructures = () =>
    limitExceeded('maxStructures', 'the body holds more objects and arrays (protobuf: messages)');
  if (format === 'json') {
    if (exceedsStructures(bytes, maxStructures)) throw tooManyStructures();
    return { format, body: parseJson(bytes) };
  }
  try {
    return { format, body: decodeOtlpProtobuf(signal!, bytes, maxStructures) };
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
  });
  // Whole prefixes, not just the five paths, so a mistyped endpoint's 404 is readable by the page rather than looking
  // like a network error (which the SDK would retry).
  for (const prefix of ['/otlp/*', '/ingest/*'])
    app.use(prefix, refusals, ingestCors(corsOrigins), ingestOriginGuard(corsOrigins));

  for (const [signal, { path, normalize }] of Object.entries(OTLP) as [OtlpSignal, (typeof OTLP)[OtlpSignal]][]) {
    documentedRoute(
      app,
      otlpRoute(signal, path),
      async (c) => {
        const { format, body } = await decodeBody(c, services, ['json', 'protobuf'], signal);
        const batch = normalize(body, services.clock.now());
        await storeBatch(services, c.get('caller').projectId, batch);
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
        const { body } = await decodeBody(c, services, ['json']);
        const result = await storeBatch(services, c.get('caller').projectId, await normalize(body));
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
