/** The answers of `/control-plane/issues` the issue pages read (server/src/issues/schemas.ts, ai/schemas.ts, github/routes.ts). */

export const ISSUE_STATUSES = ['unresolved', 'regressed', 'resolved', 'ignored'] as const;
export type IssueStatus = (typeof ISSUE_STATUSES)[number];

export interface Seen {
  at: string;
  release: string | null;
}

export interface Issue {
  id: string;
  status: IssueStatus;
  type: string;
  message: string;
  app: string;
  env: string;
  events: number;
  sessions: number;
  first_seen: Seen;
  last_seen: Seen;
  top_frame: string | null;
  status_changed_at: string | null;
  status_by: string | null;
  in_next_release: boolean;
  resolved_release: string | null;
  incident_id: string | null;
}

export interface OriginalFrame {
  file: string;
  line: number;
  column: number;
  function: string | null;
  context: { start_line: number; lines: string[] } | null;
}

export interface Frame {
  function: string;
  url: string;
  line: number;
  column: number;
  in_app: boolean;
  debug_id: string | null;
  original: OriginalFrame | null;
}

export interface IssueDetail extends Issue {
  stack: { raw: string | null; frames: Frame[] };
  last_event: { at: string; release: string | null; session_id: string | null } | null;
  releases: Array<{ release: string; events: number; first_seen: string; last_seen: string }>;
  /** The 10 most recently affected sessions (`user_id` and `first_seen` on servers that give them). */
  sessions_sample: Array<{ session_id: string; user_id?: string | null; first_seen?: string; last_seen: string; replay_url: string | null }>;
  breadcrumbs: Array<{ at: string; kind: string; message: string }>;
}

export interface AnalysisResult {
  root_cause: string;
  confidence: number;
  locations: Array<{ file: string; line: number }>;
  diff: string | null;
  diff_applies: boolean;
  explanation: string;
}

export interface Analysis {
  id: string;
  issue_id: string;
  state: 'queued' | 'running' | 'done' | 'failed';
  mode: 'model' | 'heuristic';
  model: string | null;
  result: AnalysisResult | null;
  error: { code: string; message: string; retry_after_s: number | null } | null;
  requested_at: string;
  finished_at: string | null;
  /** What left the server for the model; null when nothing did (heuristic mode). */
  sent?: unknown;
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number; duration_ms: number } | null;
}

export interface PullRequest {
  repository: string;
  number: number;
  url: string;
  branch: string;
  commit_sha: string;
  recorded_at?: string;
  created?: boolean;
}
