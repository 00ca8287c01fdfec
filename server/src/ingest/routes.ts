import { Hono, type Context } from 'hono';
import { INGEST_PATHS } from '../../../wire/paths';
import type { TelemetryTable } from '../db/schema';
import { ingestAuth } from '../http/auth';
import { bodyFormat, parseJson, readBody, type BodyFormat } from '../http/body';
import { ingestCors, ingestOriginGuard } from '../http/cors';
import type { AppEnv, Services } from '../http/env';
import { badRequest } from '../http/errors';
import { normalizeLogs } from '../otlp/logs';
import { normalizeMetrics } from '../otlp/metrics';
import { exceedsStructures } from '../json/structures';
import { decodeOtlpProtobuf, encodeOtlpProtobufResponse, ProtobufDecodeError, ProtobufStructureLimitError, type OtlpSignal } from '../otlp/protobuf';
import type { PendingBatch } from '../otlp/records';
import { normalizeTraces } from '../otlp/traces';
import { INGEST_LIMITS, limitExceeded } from './limits';
import { normalizeRecipes, normalizeReplayChunk } from './replay';
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
  const tooManyStructures = () => limitExceeded('maxStructures', 'the body holds more objects and arrays (protobuf: messages)');
  if (format === 'json') {
    if (exceedsStructures(bytes, maxStructures)) throw tooManyStructures();
    return { format, body: parseJson(bytes) };
  }
  try {
    return { format, body: decodeOtlpProtobuf(signal!, bytes, maxStructures) };
  } catch (err) {
    if (err instanceof ProtobufStructureLimitError) throw tooManyStructures();
    if (err instanceof ProtobufDecodeError) throw badRequest(`body is not a valid OTLP protobuf message: ${err.message}`);
    throw err;
  }
}

/** Ingest endpoints: OTLP/HTTP (JSON and protobuf, gzip) and the replay chunk and recipe endpoints. */
export function ingestRoutes(services: Services, corsOrigins: '*' | readonly string[]): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const auth = ingestAuth(services);
  // Whole prefixes, not just the five paths, so a mistyped endpoint's 404 is readable by the page rather than looking
  // like a network error (which the SDK would retry).
  for (const prefix of ['/otlp/*', '/ingest/*']) app.use(prefix, ingestCors(corsOrigins), ingestOriginGuard(corsOrigins));

  for (const [signal, { path, normalize }] of Object.entries(OTLP) as [OtlpSignal, (typeof OTLP)[OtlpSignal]][]) {
    app.post(path, auth, async (c) => {
      const { format, body } = await decodeBody(c, services, ['json', 'protobuf'], signal);
      const batch = normalize(body, services.clock.now());
      await storeBatch(services, c.get('caller').projectId, batch);
      // A fully accepted export: partial_success left empty, per the OTLP/HTTP specification.
      if (format === 'protobuf') {
        return c.body(encodeOtlpProtobufResponse(signal) as Uint8Array<ArrayBuffer>, 200, { 'content-type': 'application/x-protobuf' });
      }
      return c.json({ partialSuccess: {} });
    });
  }

  const replayRoute = (path: string, normalize: (body: unknown) => PendingBatch<TelemetryTable> | Promise<PendingBatch<TelemetryTable>>) =>
    app.post(path, auth, async (c) => {
      const { body } = await decodeBody(c, services, ['json']);
      const result = await storeBatch(services, c.get('caller').projectId, await normalize(body));
      return c.json({ accepted: result.stored, duplicates: result.duplicates });
    });
  replayRoute(INGEST_PATHS.replayChunk, normalizeReplayChunk);
  replayRoute(INGEST_PATHS.replayRecipes, normalizeRecipes);
  return app;
}
