import { randomBytes } from 'node:crypto';
import type { Generated, Kysely, Selectable } from 'kysely';
import type { Database } from '../db/schema';
import { iso } from '../shared/time';
import type { SentEvidence } from './evidence';

/** Table of migration 0013-issue-analyses, added to `Database` here: only this folder reads or writes it. */
export type AnalysisTables = {
  issue_analyses: {
    /** Insertion order: what "latest" means. */
    seq: Generated<number>;
    id: string;
    project_id: string;
    /** The issue's id. */
    fingerprint: string;
    state: AnalysisState;
    mode: AnalysisMode;
    /** The model asked; null in heuristic mode. */
    model: string | null;
    /** JSON {@link SentEvidence}: what left the server; null when nothing did (heuristic mode, or failed before). */
    sent: string | null;
    /** JSON {@link AnalysisResult}, once done. */
    result: string | null;
    /** JSON {@link ModelUsage} of the model call, when it answered. */
    usage: string | null;
    error_code: string | null;
    error_message: string | null;
    /** The provider's `Retry-After`, seconds, after a 429. */
    retry_after_s: number | null;
    /** `key:<name>` of the control key that asked. */
    requested_by: string;
    created_ms: number;
    finished_ms: number | null;
  };
};

export const ANALYSIS_STATES = ['queued', 'running', 'done', 'failed'] as const;
export type AnalysisState = (typeof ANALYSIS_STATES)[number];
export type AnalysisMode = 'model' | 'heuristic';

/** A file and 1-based line the root cause involves, as the source map names the file. */
export interface Location {
  file: string;
  line: number;
}

export interface AnalysisResult {
  root_cause: string;
  /** 0..1; the heuristic's is fixed and low (ai/heuristic.ts). */
  confidence: number;
  locations: Location[];
  /** A unified diff against the original sources (`a/src/cart/total.ts`, `b/…`); null when none was proposed. */
  diff: string | null;
  /** True only when `diff` applies cleanly to the sources the server holds; otherwise the diff is text to read. */
  diff_applies: boolean;
  explanation: string;
}

export interface ModelUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  duration_ms: number;
}

export interface AnalysisError {
  code: string;
  message: string;
  retry_after_s: number | null;
}

/** An analysis as the API returns it (docs/ai-fixes.md). */
export interface AnalysisView {
  id: string;
  issue_id: string;
  state: AnalysisState;
  mode: AnalysisMode;
  model: string | null;
  result: AnalysisResult | null;
  error: AnalysisError | null;
  sent: SentEvidence | null;
  usage: ModelUsage | null;
  requested_at: string;
  finished_at: string | null;
}

type Row = Selectable<AnalysisTables['issue_analyses']>;
type AnalysisDb = Kysely<Database & AnalysisTables>;

const tables = (db: Kysely<Database>): AnalysisDb => db.withTables<AnalysisTables>();
const parsed = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));
const UNDER_WAY: AnalysisState[] = ['queued', 'running'];

function view(row: Omit<Row, 'seq'>): AnalysisView {
  return {
    id: row.id,
    issue_id: row.fingerprint,
    state: row.state,
    mode: row.mode,
    model: row.model,
    result: parsed<AnalysisResult>(row.result),
    error:
      row.error_code === null
        ? null
        : { code: row.error_code, message: row.error_message ?? '', retry_after_s: row.retry_after_s },
    sent: parsed<SentEvidence>(row.sent),
    usage: parsed<ModelUsage>(row.usage),
    requested_at: iso(Number(row.created_ms)),
    finished_at: row.finished_ms === null ? null : iso(Number(row.finished_ms)),
  };
}

/** The newest analysis of an issue, whatever its state; undefined when it was never analysed. */
export async function latestAnalysis(
  db: Kysely<Database>,
  projectId: string,
  issueId: string,
): Promise<AnalysisView | undefined> {
  const row = await tables(db)
    .selectFrom('issue_analyses')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('fingerprint', '=', issueId)
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row && view(row);
}

export interface NewAnalysis {
  projectId: string;
  issueId: string;
  mode: AnalysisMode;
  model: string | null;
  requestedBy: string;
  nowMs: number;
  /** An analysis under way since before this is taken as cut off (the process that ran it stopped) and failed. */
  staleBeforeMs: number;
}

/**
 * A new queued analysis, or the one already queued or running for the issue (`created: false`): a unique partial
 * index allows one under way per issue, so two requests at once also get one analysis.
 */
export async function queueAnalysis(
  db: Kysely<Database>,
  a: NewAnalysis,
): Promise<{ view: AnalysisView; created: boolean }> {
  await failStale(db, a);
  const row: Omit<Row, 'seq'> = {
    id: `ana_${randomBytes(10).toString('hex')}`,
    project_id: a.projectId,
    fingerprint: a.issueId,
    state: 'queued',
    mode: a.mode,
    model: a.model,
    sent: null,
    result: null,
    usage: null,
    error_code: null,
    error_message: null,
    retry_after_s: null,
    requested_by: a.requestedBy,
    created_ms: a.nowMs,
    finished_ms: null,
  };
  try {
    // Its own (nested) transaction: a refused insert must not abort the request's transaction it may run in.
    await db.transaction().execute((tx) => tables(tx).insertInto('issue_analyses').values(row).execute());
    return { view: view(row), created: true };
  } catch (err) {
    const running = await underWay(db, a.projectId, a.issueId);
    if (running) return { view: view(running), created: false };
    throw err;
  }
}

function underWay(db: Kysely<Database>, projectId: string, issueId: string): Promise<Row | undefined> {
  return tables(db)
    .selectFrom('issue_analyses')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('fingerprint', '=', issueId)
    .where('state', 'in', UNDER_WAY)
    .executeTakeFirst();
}

async function failStale(db: Kysely<Database>, a: NewAnalysis): Promise<void> {
  await tables(db)
    .updateTable('issue_analyses')
    .set({
      state: 'failed',
      error_code: 'interrupted',
      error_message: 'the server stopped before the analysis ended; ask again',
      finished_ms: a.nowMs,
    })
    .where('project_id', '=', a.projectId)
    .where('fingerprint', '=', a.issueId)
    .where('state', 'in', UNDER_WAY)
    .where('created_ms', '<', a.staleBeforeMs)
    .execute();
}

export async function markRunning(db: Kysely<Database>, id: string): Promise<void> {
  await tables(db)
    .updateTable('issue_analyses')
    .set({ state: 'running' })
    .where('id', '=', id)
    .where('state', '=', 'queued')
    .execute();
}

/** The end of an analysis, written in one UPDATE: a reader sees it under way, or done (or failed) with all of it. */
export type AnalysisOutcome =
  | { state: 'done'; result: AnalysisResult; sent: SentEvidence | null; usage: ModelUsage | null }
  | { state: 'failed'; error: AnalysisError; sent: SentEvidence | null; usage: ModelUsage | null };

export async function finishAnalysis(
  db: Kysely<Database>,
  id: string,
  outcome: AnalysisOutcome,
  nowMs: number,
): Promise<void> {
  const json = (value: unknown) => (value === null ? null : JSON.stringify(value));
  const error = outcome.state === 'failed' ? outcome.error : null;
  await tables(db)
    .updateTable('issue_analyses')
    .set({
      state: outcome.state,
      result: outcome.state === 'done' ? JSON.stringify(outcome.result) : null,
      sent: json(outcome.sent),
      usage: json(outcome.usage),
      error_code: error?.code ?? null,
      error_message: error?.message ?? null,
      retry_after_s: error?.retry_after_s ?? null,
      finished_ms: nowMs,
    })
    .where('id', '=', id)
    .where('state', 'in', UNDER_WAY)
    .execute();
}
