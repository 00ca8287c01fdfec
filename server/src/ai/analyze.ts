import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import { afterCommit } from '../db/request-transaction';
import type { Database } from '../db/schema';
import { issueDetail } from '../issues/detail';
import type { IssueRow } from '../issues/store';
import type { Symbolicator } from '../sourcemaps/types';
import {
  finishAnalysis,
  markRunning,
  queueAnalysis,
  type AnalysisOutcome,
  type AnalysisView,
  type Location,
} from './store';
import { gatherEvidence } from './evidence';
import { heuristicResult } from './heuristic';
import { askModel } from './model';
import { diffApplies } from './patch';
import { DEFAULT_AI_TIMEOUT_MS, type AiSettings } from './settings';

export interface AnalyzerDeps {
  db: Kysely<Database>;
  symbolicator: Symbolicator;
  publicUrl: () => string;
  clock: Clock;
  log: (line: string) => void;
  /** The model; heuristic analyses without one. */
  ai: AiSettings | undefined;
}

export interface Analyzer {
  /** Starts an analysis of the issue in the background, or returns the one under way (`created: false`). */
  request(row: IssueRow, requestedBy: string): Promise<{ view: AnalysisView; created: boolean }>;
}

type Detail = Awaited<ReturnType<typeof issueDetail>>;

/** Files and lines of the in-app frames a map covered, top first. */
const locationsOf = (detail: Detail): Location[] =>
  detail.stack.frames.flatMap((f) =>
    f.in_app && f.original ? [{ file: f.original.file, line: f.original.line }] : [],
  );

/** Runs analyses (docs/ai-fixes.md): each in the background of this process, its end written in one update. */
export function createAnalyzer(deps: AnalyzerDeps): Analyzer {
  const { db, ai } = deps;
  // Longer than a model call can take: an analysis under way for longer lost the process that ran it.
  const staleAfterMs = 2 * (ai?.timeoutMs ?? DEFAULT_AI_TIMEOUT_MS) + 60_000;

  async function outcomeOf(row: IssueRow): Promise<AnalysisOutcome> {
    const detail = await issueDetail({ db, symbolicator: deps.symbolicator, publicUrl: deps.publicUrl() }, row);
    if (!ai)
      return { state: 'done', result: await heuristicResult(db, row, locationsOf(detail)), sent: null, usage: null };
    const { sent, sources } = await gatherEvidence(db, row, detail);
    const asked = await askModel(ai, sent, deps.log);
    if (!asked.ok) return { state: 'failed', error: asked.error, sent, usage: asked.usage };
    const { answer } = asked;
    const applies = answer.diff !== null && (await diffApplies(answer.diff, sources));
    return { state: 'done', result: { ...answer, diff_applies: applies }, sent, usage: asked.usage };
  }

  async function run(id: string, row: IssueRow): Promise<void> {
    let outcome: AnalysisOutcome;
    try {
      await markRunning(db, id);
      outcome = await outcomeOf(row);
    } catch (err) {
      deps.log(
        `ai: analysis ${id} of issue ${row.fingerprint} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
      );
      outcome = {
        state: 'failed',
        error: { code: 'internal', message: 'the analysis failed inside the server; see its log', retry_after_s: null },
        sent: null,
        usage: null,
      };
    }
    await finishAnalysis(db, id, outcome, deps.clock.now());
  }

  return {
    async request(row, requestedBy) {
      const now = deps.clock.now();
      const queued = await queueAnalysis(db, {
        projectId: row.project_id,
        issueId: row.fingerprint,
        mode: ai ? 'model' : 'heuristic',
        model: ai?.model ?? null,
        requestedBy,
        nowMs: now,
        staleBeforeMs: now - staleAfterMs,
      });
      // The run reads the queued row: it starts once the request that queued it has committed.
      if (queued.created) {
        afterCommit(
          () =>
            void run(queued.view.id, row).catch((err: unknown) =>
              deps.log(`ai: could not record the end of analysis ${queued.view.id}: ${String(err)}`),
            ),
        );
      }
      return queued;
    },
  };
}
