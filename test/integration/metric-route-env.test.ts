import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../server/src/db/connect';
import { migrateToLatest, migrateUpTo } from '../../server/src/db/migrate';
import { normalizeMetrics } from '../../server/src/otlp/metrics';
import { createTempDatabase, databaseKinds, type TempDatabase } from '../support/databases';
import { str } from '../support/otlp';

/**
 * Metric points carry their page and environment as columns (migration 0034): new points from the normalizer, points
 * stored before the upgrade from the migration, with the environment rule issues use (a test run's points are `test`).
 */

const kinds = await databaseKinds();
const databases: TempDatabase[] = [];
const handles: DatabaseHandle[] = [];
afterAll(async () => {
  for (const h of handles) await h.db.destroy();
  for (const d of databases) await d.drop();
});

const resource = (attributes: Record<string, string>) =>
  JSON.stringify({ attributes: { 'service.name': 'web', ...attributes } });

/** A vital point as the ingest stored it before 0034: page and environment only inside its JSON. */
const oldPoint = (
  id: number,
  name: string,
  attributes: Record<string, string>,
  resourceAttributes: Record<string, string>,
) => ({
  id,
  project_id: 'p1',
  app_id: 'a1',
  name,
  description: null,
  unit: 'ms',
  type: 'gauge' as const,
  time_ns: '1700000000000000000',
  start_ns: null,
  time_ms: 1_700_000_000_000,
  value: 1000 + id,
  data: '{}',
  session_id: null,
  point_uid: null,
  attributes: JSON.stringify(attributes),
  resource: resource(resourceAttributes),
  scope: '{}',
  received_ms: 1_700_000_000_000,
});

describe.each(kinds)('metric points route and env columns (%s)', (kind) => {
  it('fills stored vitals on upgrade: url.path, the resource environment, test runs as test', async () => {
    const database = await createTempDatabase(kind);
    databases.push(database);
    const handle = openDatabase(database.url);
    handles.push(handle);
    await migrateUpTo(handle, '0033-listing-indexes');
    const { db } = handle;
    await db.insertInto('tenants').values({ id: 't1', name: 't', created_ms: 0, sso_policy: null }).execute();
    await db.insertInto('projects').values({ id: 'p1', tenant_id: 't1', name: 'p', created_ms: 0 }).execute();
    await db.insertInto('apps').values({ id: 'a1', project_id: 'p1', name: 'web', created_ms: 0 }).execute();
    const rows = [
      oldPoint(1, 'web_vital_lcp_ms', { 'url.path': '/checkout' }, { 'deployment.environment.name': 'staging' }),
      oldPoint(2, 'web_vital_inp_ms', {}, { 'deployment.environment': 'qa' }),
      oldPoint(
        3,
        'web_vital_cls',
        { 'url.path': '/' },
        { 'test.run.id': 'run-1', 'deployment.environment.name': 'ci' },
      ),
      oldPoint(4, 'web_vital_ttfb_ms', { 'url.path': '/x' }, {}),
      oldPoint(5, 'app.orders', { 'url.path': '/y' }, { 'deployment.environment.name': 'staging' }),
    ];
    // Inserted as the old schema's columns; Kysely's types already know the new ones.
    await db
      .insertInto('metric_points')
      .values(rows as never)
      .execute();
    await migrateToLatest(handle);
    const stored = await db.selectFrom('metric_points').select(['id', 'route', 'env']).orderBy('id').execute();
    expect(stored.map((r) => [Number(r.id), r.route, r.env])).toEqual([
      [1, '/checkout', 'staging'],
      [2, null, 'qa'],
      [3, '/', 'test'],
      [4, '/x', 'production'],
      // Not a vital: no page reads it from the columns before this version, so it is left as it was.
      [5, null, null],
    ]);
  });
});

describe('normalizeMetrics', () => {
  it('sets route from url.path and env from the resource on every point', () => {
    const body = (resourceAttributes: Array<ReturnType<typeof str>>) => ({
      resourceMetrics: [
        {
          resource: { attributes: [str('service.name', 'web'), ...resourceAttributes] },
          scopeMetrics: [
            {
              metrics: [
                {
                  name: 'web_vital_lcp_ms',
                  gauge: {
                    dataPoints: [{ timeUnixNano: '1', asDouble: 1, attributes: [str('url.path', '/cart')] }],
                  },
                },
                { name: 'requests', sum: { dataPoints: [{ timeUnixNano: '1', asInt: '3' }] } },
              ],
            },
          ],
        },
      ],
    });
    const rows = normalizeMetrics(body([str('deployment.environment.name', 'staging')])).rows;
    expect(rows.map((r) => [r.route, r.env])).toEqual([
      ['/cart', 'staging'],
      [null, 'staging'],
    ]);
    const test = normalizeMetrics(body([str('test.run.id', 'r'), str('deployment.environment.name', 'ci')])).rows;
    expect(test.map((r) => r.env)).toEqual(['test', 'test']);
    expect(normalizeMetrics(body([])).rows.map((r) => r.env)).toEqual(['production', 'production']);
  });
});
