import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { headline, quoteSourceLine } from '../incidents/detect/root-cause';
import type { FrameSource } from '../incidents/detect/tables';
import { newestIncidentRootCause, type IssueRow } from '../issues/store';
import type { AnalysisResult, Location } from './store';

export const HEURISTIC_EXPLANATION =
  'Heuristic summary: no model is configured (SVC_AI_BASE_URL and SVC_AI_MODEL), so this is the root-cause sentence the ' +
  'incident detector writes from the evidence, with no fix suggested. Nothing was sent anywhere.';

/**
 * Today's root cause without a model: the summary of the issue's newest incident when it has one (incidents/detect/
 * root-cause.ts), else the error, where it happens and the line there. Confidence 0: the heuristic does not judge.
 */
export async function heuristicResult(
  db: Kysely<Database>,
  row: IssueRow,
  locations: Location[],
): Promise<AnalysisResult> {
  const rootCause = await newestIncidentRootCause(db, row);
  return {
    root_cause: rootCause ?? ownSummary(row),
    confidence: 0,
    locations,
    diff: null,
    diff_applies: false,
    explanation: HEURISTIC_EXPLANATION,
  };
}

function ownSummary(row: IssueRow): string {
  const where = row.top_frame ? ` at ${row.top_frame}` : '';
  const source = row.top_source === null ? undefined : (JSON.parse(row.top_source) as FrameSource);
  const release = row.first_release ? ` First seen in release ${row.first_release}.` : '';
  return [
    `${headline({ errorType: row.error_type, sampleMessage: row.sample_message })}${where}.`,
    quoteSourceLine(source),
    release.trim(),
  ]
    .filter(Boolean)
    .join(' ');
}
