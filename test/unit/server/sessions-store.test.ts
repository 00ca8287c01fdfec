import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../../server/src/db/connect';
import { readAttributeFilters, sessionConditions } from '../../../server/src/sessions/filters';
import { pagesMatching } from '../../../server/src/sessions/pages';
import { findSession, listSessions, samplingSummary, sessionFacets } from '../../../server/src/sessions/store';
import { DomainError } from '../../../server/src/shared/domain-errors';
import { readSideDatabase, sessionRow } from '../../support/read-side-db';

describe('session filters', () => {
  it('reads attr.<key> parameters and refuses bad ones as invalid, naming the parameter', () => {
    expect(readAttributeFilters({ 'attr.tier': ['3', 'gold'], env: ['prod'] })).toEqual([
      { key: 'tier', value: '3' },
      { key: 'tier', value: 'gold' },
    ]);
    const refusal = (query: Record<string, string[]>) => {
      try {
        readAttributeFilters(query);
      } catch (err) {
        return err instanceof DomainError ? [err.kind, err.code, (err.details as { field: string }).field] : err;
      }
      return undefined;
    };
    expect(refusal({ 'attr.a b': ['x'] })).toEqual(['invalid', 'invalid_request', 'attr.a b']);
    expect(refusal({ 'attr.tier': [''] })).toEqual(['invalid', 'invalid_request', 'attr.tier']);
    const nine = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`attr.k${i}`, ['v']]));
    expect(refusal(nine)).toEqual(['invalid', 'invalid_request', 'attr.']);
  });
});

describe('sessions store (SQLite)', () => {
  let database: DatabaseHandle & { projectId: string; appId: string };
  const ids = async (
    { url, ...filters }: Parameters<typeof sessionConditions>[1] & { url?: string },
    attrs: Record<string, string[]> = {},
  ) => {
    const pages = url === undefined ? filters.pages : await pagesMatching(database.db, 'sqlite', 'p1', url);
    const conditions = sessionConditions('sqlite', { ...filters, pages }, readAttributeFilters(attrs));
    const rows = await listSessions(database.db, 'p1', { conditions, sort: 'last_ms', order: 'desc', limit: 10 });
    return rows.map((r) => r.session_id);
  };

  beforeAll(async () => {
    database = await readSideDatabase();
    await database.db
      .insertInto('sessions')
      .values([
        sessionRow('s1', { env: 'prod', urls: '["/cart","/100%_off"]', attributes: '{"tier":3}', last_ms: 3000 }),
        sessionRow('s2', { env: 'staging', error_count: 2, browser: 'Firefox', sample_rate: 0.5, last_ms: 2500 }),
        sessionRow('s3', { env: 'prod', first_ms: 9000, last_ms: 9500, duration_ms: 500, replay_mode: 'on_error' }),
      ])
      .execute();
    // The page paths ingest keeps beside s1's pages (sessions/tables.ts).
    const paths = ['/cart', '/100%_off'];
    await database.db
      .insertInto('page_paths')
      .values(paths.map((path) => ({ project_id: 'p1', path })))
      .execute();
    await database.db
      .insertInto('session_pages')
      .values(paths.map((path) => ({ project_id: 'p1', path, session_id: 's1', received_ms: 3000 })))
      .execute();
  });
  afterAll(() => database?.close());

  it('turns each filter into its condition, every one of them holding', async () => {
    expect(await ids({})).toEqual(['s3', 's1', 's2']);
    expect(await ids({ env: 'prod' })).toEqual(['s3', 's1']);
    expect(await ids({ has_errors: true })).toEqual(['s2']);
    expect(await ids({ has_errors: false, env: 'prod' })).toEqual(['s3', 's1']);
    expect(await ids({ from: 2600 })).toEqual(['s3', 's1']);
    expect(await ids({ to: 5000, min_duration_ms: 1000 })).toEqual(['s1', 's2']);
    // LIKE's own characters in the text match literally; ASCII case is ignored.
    expect(await ids({ url: '100%_OFF' })).toEqual(['s1']);
    expect(await ids({ url: '100%x' })).toEqual([]);
    // A path too common to list its sessions: each walked session is looked up among its pages.
    expect(await ids({ pages: { paths: ['/cart', '/checkout'] } })).toEqual(['s1']);
    // attr.tier=3 matches the number 3 as well as the text "3".
    expect(await ids({}, { 'attr.tier': ['3'] })).toEqual(['s1']);
  });

  it('finds one session with its app, and says not_found for another project or none', async () => {
    expect((await findSession(database.db, 'p1', 's1')).app).toBe('web');
    await expect(findSession(database.db, 'p2', 's1')).rejects.toMatchObject({
      kind: 'not_found',
      message: 'no session "s1" in this project',
    });
  });

  it('lists facets and sampling figures of the sessions in range', async () => {
    expect(await sessionFacets(database.db, { projectId: 'p1', range: [] })).toEqual({
      envs: ['prod', 'staging'],
      releases: [],
      browsers: ['Firefox'],
      apps: ['web'],
    });
    const range = sessionConditions('sqlite', { from: 9000 }, []);
    expect((await sessionFacets(database.db, { projectId: 'p1', range })).envs).toEqual(['prod']);
    const sampling = await samplingSummary(database.db, 'p1', {});
    expect(sampling).toMatchObject({ sessions_received: 3, sessions_estimated: 4, sampled_share: 0.75 });
    expect(sampling.replay_modes.on_error).toBe(1);
  });
});
