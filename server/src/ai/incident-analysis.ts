import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { escapeHtml } from '../incidents/dashboard';
import { errorEvidence, type IncidentView } from '../incidents/types';
import { latestAnalysis, type AnalysisView } from './store';

/** An analysis as an incident shows it: without what was sent and the usage, which its own endpoint has. */
export type IncidentAnalysis = Omit<AnalysisView, 'sent' | 'usage'>;

/**
 * The latest analysis of the issue a detected incident grew from (incidents are keyed by their issue's fingerprint);
 * null for an incident created through the API, or an issue never analysed.
 */
export async function incidentAnalysis(
  db: Kysely<Database>,
  projectId: string,
  incident: IncidentView,
): Promise<IncidentAnalysis | null> {
  const fingerprint = errorEvidence(incident.evidence)?.fingerprint;
  const analysis = fingerprint === undefined ? undefined : await latestAnalysis(db, projectId, fingerprint);
  if (!analysis) return null;
  const { sent: _sent, usage: _usage, ...shown } = analysis;
  return shown;
}

/** The incident page's analysis section, for notices (chat, Teams, e-mail): null while the issue has no analysis. */
export async function analysisLink(
  db: Kysely<Database>,
  projectId: string,
  incident: IncidentView,
): Promise<string | null> {
  return (await incidentAnalysis(db, projectId, incident)) ? `${incident.dashboard_url}#analysis` : null;
}

/**
 * The incident page's section (`#analysis`): the root cause and fix suggested, a heuristic one marked as such. A root
 * cause that is the incident's own summary (the heuristic's, without a model) is not printed a second time.
 */
export function analysisSection(analysis: IncidentAnalysis | null, summary: string): string {
  const heading = '<h2 id="analysis">Root-cause analysis</h2>';
  if (!analysis)
    return `${heading}<p>Not analysed yet: <code>POST /control-plane/issues/{id}/analysis</code> (docs/ai-fixes.md).</p>`;
  const r = analysis.result;
  if (!r) {
    const why = analysis.error ? `failed (${analysis.error.code}): ${analysis.error.message}` : `${analysis.state}…`;
    return `${heading}<p>Analysis ${escapeHtml(why)}</p>`;
  }
  const source =
    analysis.mode === 'heuristic'
      ? 'Heuristic summary (no model configured)'
      : `Model ${analysis.model ?? ''}, confidence ${Math.round(r.confidence * 100)}%`;
  const where = r.locations.map((l) => `${l.file}:${l.line}`).join(', ');
  const diff =
    r.diff === null
      ? ''
      : `<h3>Suggested fix${r.diff_applies ? '' : ' (does not apply to the sources: text only)'}</h3><pre>${escapeHtml(r.diff)}</pre>`;
  const rootCause = r.root_cause === summary ? 'The root cause above.' : r.root_cause;
  return `${heading}<p><em>${escapeHtml(source)}</em></p><p>${escapeHtml(rootCause)}</p>${where ? `<p>Where: ${escapeHtml(where)}</p>` : ''}<p>${escapeHtml(r.explanation)}</p>${diff}`;
}
