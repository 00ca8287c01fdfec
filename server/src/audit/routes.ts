import { createRoute, z } from '@hono/zod-openapi';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { readCursor } from '../http/cursor';
import type { Services } from '../http/env';
import { createRouter, documentedRoute, errors, jsonAnswer, needs, validationError } from '../http/openapi';
import { cursorQuery, limitQuery, pageOf, rangeQuery, Time } from '../http/schemas';
import { keysetPage } from '../shared/keyset';
import { iso } from '../shared/time';
import { listAudit, type AuditFilter, type AuditRow } from './store';

/** `GET /control-plane/audit`: 50 entries a page by default, at most 500; the export reads pages of 500. */
const PAGE = { default: 50, max: 500 } as const;

const Entry = z
  .object({
    id: z.string(),
    at: Time,
    actor: z.object({
      kind: z.enum(['person', 'key', 'system', 'link', 'chat']).openapi({
        description: 'link: a signed notification link or a voice call; chat: a chat app user',
      }),
      id: z.string().openapi({ description: "The person's user id, the key's id, `link`, `voice` or `chat:<user>`" }),
      label: z.string().openapi({ description: 'The e-mail or `key:<name>`, as they were at the time' }),
    }),
    operation: z.string().openapi({ example: 'PATCH /control-plane/issues/{id}' }),
    target: z.object({ type: z.string(), id: z.string() }).nullable(),
    changes: z
      .object({ before: z.unknown().optional(), after: z.unknown().optional() })
      .openapi({ description: 'The changed fields before and after; secrets are `[REDACTED]`' }),
    address: z.string().nullable(),
    status: z.number().int(),
    project_id: z.string().nullable(),
  })
  .openapi('AuditEntry');

const filters = {
  actor: z.string().min(1).optional().openapi({ description: 'User id or e-mail, key id or `key:<name>`' }),
  operation: z.string().min(1).optional().openapi({ example: 'DELETE /control-plane/notifications/channels/{id}' }),
  target_type: z.string().min(1).optional().openapi({ example: 'channel' }),
  target_id: z.string().min(1).optional(),
  from: rangeQuery.from,
  to: rangeQuery.to,
};

const ExportQuery = z.strictObject(filters);

/** The store's filter from the query's fields: the listing's and the export's alike. */
const filterOf = (q: z.infer<typeof ExportQuery>): AuditFilter => ({
  ...(q.actor !== undefined && { actor: q.actor }),
  ...(q.operation !== undefined && { operation: q.operation }),
  ...(q.target_type !== undefined && { targetType: q.target_type }),
  ...(q.target_id !== undefined && { targetId: q.target_id }),
  ...(q.from !== undefined && { fromMs: q.from }),
  ...(q.to !== undefined && { toMs: q.to }),
});

const control = { tags: ['audit'] };

const listRoute = createRoute({
  ...needs('audit.view'),
  ...control,
  method: 'get',
  path: '/',
  summary: "The organisation's audit log, newest first",
  description:
    'Every change to the organisation\'s projects, keys and members: who (person or key), what (operation and target), the changed fields (never a secret), when, from which address (docs/teams.md, "Audit log").',
  request: {
    query: z.strictObject({ ...filters, limit: limitQuery(PAGE.default, PAGE.max), cursor: cursorQuery }),
  },
  responses: { 200: jsonAnswer('A page', pageOf(Entry)), ...errors(400, 401, 403) },
});

const exportRoute = createRoute({
  ...needs('audit.view'),
  ...control,
  method: 'get',
  path: '/export',
  summary: 'The audit log as JSON lines, newest first',
  description: "One entry (as the listing gives it) per line, streamed; the listing's filters narrow it.",
  request: { query: ExportQuery },
  responses: {
    200: { description: 'JSON lines', content: { 'application/x-ndjson': { schema: z.string() } } },
    ...errors(400, 401, 403),
  },
});

function entryJson(row: AuditRow): z.infer<typeof Entry> {
  return {
    id: String(row.id),
    at: iso(Number(row.at_ms)),
    actor: { kind: row.actor_kind, id: row.actor_id, label: row.actor_label },
    operation: row.operation,
    target: row.target_type !== null && row.target_id !== null ? { type: row.target_type, id: row.target_id } : null,
    changes: JSON.parse(row.changes) as { before?: unknown; after?: unknown },
    address: row.address,
    status: row.status,
    project_id: row.project_id,
  };
}

const position = (row: AuditRow) => ({ t: Number(row.at_ms), k: Number(row.id) });

/**
 * The entries of `filter` as JSON lines, read a page at a time as the client takes them: memory stays one page
 * however long the log.
 */
function ndjson(db: Kysely<Database>, tenantId: string, filter: AuditFilter): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let cursor: { t: number; k: number } | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const rows = await listAudit(db, tenantId, filter, { limit: PAGE.max, ...(cursor && { cursor }) });
      const page = rows.slice(0, PAGE.max);
      if (page.length > 0)
        controller.enqueue(encoder.encode(page.map((r) => `${JSON.stringify(entryJson(r))}\n`).join('')));
      if (rows.length <= PAGE.max) controller.close();
      else cursor = position(page[page.length - 1]!);
    },
  });
}

/**
 * `/control-plane/audit`: the audit log of the caller's organisation (every project of it, each entry naming its
 * project), listed with filters and exported as JSON lines. Needs `audit.view` (admins, owners, admin keys).
 */
export function auditRoutes(services: Services) {
  const app = createRouter().openapi(listRoute, async (c) => {
    const q = c.req.valid('query');
    const cursor = readCursor(c, 'number');
    const rows = await listAudit(services.db, c.get('caller').tenantId, filterOf(q), {
      limit: q.limit,
      ...(cursor && { cursor }),
    });
    return c.json(keysetPage(rows, q.limit, entryJson, position), 200);
  });

  // Registered as it is: the generated validator's typed answers have no room for a stream.
  documentedRoute(app, exportRoute, (c) => {
    const parsed = ExportQuery.safeParse(c.req.query());
    if (!parsed.success) throw validationError(parsed.error, 'query');
    const body = ndjson(services.db, c.get('caller').tenantId, filterOf(parsed.data));
    return c.body(body, 200, { 'content-type': 'application/x-ndjson; charset=utf-8' });
  });
  return app;
}
