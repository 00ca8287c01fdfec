import type { Selectable } from 'kysely';
import type { Database } from '../db/schema';
import { iso } from '../shared/time';

const parse = (json: string): unknown => JSON.parse(json);

/** A session summary as the API returns it. */
export const sessionJson = (s: Selectable<Database['sessions']> & { app: string }) => ({
  session_id: s.session_id,
  app: s.app,
  first_seen: iso(s.first_ms),
  last_seen: iso(s.last_ms),
  counts: {
    spans: s.span_count,
    logs: s.log_count,
    metric_points: s.metric_count,
    replay_chunks: s.replay_chunk_count,
    recipes: s.recipe_count,
  },
  user:
    s.user_id === null
      ? null
      : {
          id: s.user_id,
          ...(s.user_email !== null && { email: s.user_email }),
          ...(s.user_name !== null && { name: s.user_name }),
        },
  attributes: s.attributes === null ? {} : (parse(s.attributes) as Record<string, unknown>),
  replay_mode: s.replay_mode,
  // PostgreSQL's driver returns double precision as a number already; SQLite's REAL likewise.
  sample_rate: s.sample_rate,
  duration_ms: s.duration_ms,
  env: s.env,
  release: s.release,
  pages: s.page_count,
  entry_url: s.entry_url,
  urls: s.urls === null ? [] : (parse(s.urls) as string[]),
  errors: s.error_count,
  device: { browser: s.browser, browser_version: s.browser_version, os: s.os, type: s.device },
  test:
    s.test_run_id === null
      ? null
      : { run_id: s.test_run_id, test_id: s.test_id, retry: s.test_retry, title: s.test_title, file: s.test_file },
});
