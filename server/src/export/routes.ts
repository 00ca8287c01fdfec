import { createRoute, z } from '@hono/zod-openapi';
import type { Services } from '../http/env';
import { createRouter, documentedRoute, errors, needs, validationError } from '../http/openapi';
import { intParam, rangeQuery } from '../http/schemas';
import { checkExport, EXPORT_SIGNALS, exportLines } from './lines';

const ExportQuery = z.strictObject({
  signal: z.enum(EXPORT_SIGNALS).openapi({ description: 'What to export: one signal per request' }),
  from: rangeQuery.from,
  to: rangeQuery.to,
  cursor: z
    .string()
    .optional()
    .openapi({ description: 'The `cursor` of the last line received: the export resumes with exactly the rest' }),
  page_size: intParam(1, 1000).optional().openapi({
    description: 'Records read per page (spans, logs, metrics: 500, at most 1000; replay: 20, at most 100)',
  }),
});

const exportRoute = createRoute({
  ...needs('project.configure'),
  tags: ['query'],
  method: 'get',
  path: '/',
  summary: "The project's records of one signal as JSON lines, oldest first",
  description:
    'Spans, logs and metric points as OTLP/JSON export requests (one per page of records, one per line), replay chunks as ingest takes them (rrweb events inline, one per line), streamed page by page. Every line ends with `cursor`, the position after it: pass the last one received to resume. Never carries a key (docs/governance.md, "Export").',
  request: { query: ExportQuery },
  responses: {
    200: { description: 'JSON lines', content: { 'application/x-ndjson': { schema: z.string() } } },
    ...errors(400, 401, 403),
  },
});

/** Lines pulled from `lines` as the client reads: the next page is read only when the last one has been taken. */
function streamOf(lines: AsyncGenerator<string>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await lines.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await lines.return(undefined);
    },
  });
}

/**
 * `GET /control-plane/export`: everything of the caller's project of one signal, for a time range. Needs
 * `project.configure` (owners, admins, control and admin keys): it hands out every record at once.
 */
export function exportRoutes(services: Services) {
  const app = createRouter();
  // Registered as it is: the generated validator's typed answers have no room for a stream.
  documentedRoute(app, exportRoute, (c) => {
    const parsed = ExportQuery.safeParse(c.req.query());
    if (!parsed.success) throw validationError(parsed.error, 'query');
    const q = parsed.data;
    checkExport(q.signal, q.cursor, q.page_size);
    const lines = exportLines(services.db, {
      projectId: c.get('caller').projectId,
      signal: q.signal,
      ...(q.from !== undefined && { from: q.from }),
      ...(q.to !== undefined && { to: q.to }),
      ...(q.cursor !== undefined && { cursor: q.cursor }),
      ...(q.page_size !== undefined && { pageSize: q.page_size }),
    });
    return c.body(streamOf(lines), 200, { 'content-type': 'application/x-ndjson; charset=utf-8' });
  });
  return app;
}
