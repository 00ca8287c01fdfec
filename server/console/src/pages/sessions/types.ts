/** The sessions listing's answers (server/src/query/schemas.ts: Session, SessionFacets). */

export interface SessionItem {
  session_id: string;
  app: string;
  first_seen: string;
  last_seen: string;
  counts: { spans: number; logs: number; metric_points: number; replay_chunks: number; recipes: number };
  user: { id: string; email?: string; name?: string } | null;
  attributes: Record<string, unknown>;
  replay_mode: string | null;
  sample_rate: number | null;
  duration_ms: number;
  env: string | null;
  release: string | null;
  pages: number;
  entry_url: string | null;
  urls: string[];
  errors: number;
  device: { browser: string | null; browser_version: string | null; os: string | null; type: string | null };
}

export interface SessionFacets {
  envs: string[];
  releases: string[];
  browsers: string[];
  apps: string[];
}
