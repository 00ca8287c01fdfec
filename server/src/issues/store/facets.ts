import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema';
import { TEST_ENV } from '../../otlp/environment';

/** Releases offered, the most recently seen first: a project that releases every commit has thousands. */
export const MAX_FACET_RELEASES = 100;

export interface IssueFacets {
  envs: string[];
  releases: string[];
}

/** The values the issue list's env and release filters take in the project. */
export async function issueFacets(db: Kysely<Database>, projectId: string): Promise<IssueFacets> {
  const [envs, tested, releases] = await Promise.all([
    db
      .selectFrom('detection_groups')
      .select('env')
      .distinct()
      .where('project_id', '=', projectId)
      .where('total_count', '>', 0)
      .orderBy('env')
      .execute(),
    db
      .selectFrom('detection_groups')
      .select('project_id')
      .where('project_id', '=', projectId)
      .where('test_count', '>', 0)
      .limit(1)
      .executeTakeFirst(),
    db
      .selectFrom('issue_releases')
      .select('release')
      .where('project_id', '=', projectId)
      .groupBy('release')
      .orderBy((eb) => eb.fn.max('last_seen_ms'), 'desc')
      .orderBy('release')
      .limit(MAX_FACET_RELEASES)
      .execute(),
  ]);
  // Issues seen in test runs keep their production env: `test` is the filter that asks for them (store/list.ts).
  const names = envs.map((e) => e.env);
  if (tested && !names.includes(TEST_ENV)) names.push(TEST_ENV);
  return { envs: names, releases: releases.map((r) => r.release) };
}
