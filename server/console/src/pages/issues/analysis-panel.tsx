import { useEffect, useState } from 'react';
import { parseResponse } from 'hono/client';
import { analysisClient, githubClient } from '../../api/typed';
import { can } from '../../api/types';
import { useApi } from '../../api/use-api';
import { useMe } from '../../auth/me-context';
import { formatDuration, formatTime } from '../../ui/format';
import { Badge, LoadState } from '../../ui/status';
import { ActionError, useAction } from '../../ui/use-action';
import type { Analysis, PullRequest } from './types';

/** How often a queued or running analysis is asked about again. */
const POLL_MS = 1_000;

const unfinished = (a: Analysis | undefined) => a?.state === 'queued' || a?.state === 'running';

/** The latest analysis of the issue (null when none was asked for), asked again while it is under way. */
function useAnalysis(issueId: string) {
  const state = useApi(
    (o) => analysisClient[':id'].analysis.$get({ param: { id: encodeURIComponent(issueId) } }, o),
    [issueId],
  );
  const { data, reload } = state;
  useEffect(() => {
    if (!unfinished(data ?? undefined)) return;
    const timer = setTimeout(reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [data, reload]);
  return { analysis: data ?? undefined, error: state.error, loading: state.loading && data === undefined, reload };
}

function AnalysisResultView({ analysis }: { analysis: Analysis }) {
  const r = analysis.result;
  if (analysis.state === 'failed') {
    return (
      <p role="alert" className="state-error">
        The analysis failed ({analysis.error?.code}): {analysis.error?.message}
        {analysis.error?.retry_after_s ? ` Try again in ${analysis.error.retry_after_s} s.` : ''}
      </p>
    );
  }
  if (!r) return <p role="status">Analysis {analysis.state}…</p>;
  return (
    <>
      <h3>Root cause</h3>
      <p className="root-cause">{r.root_cause}</p>
      {r.explanation && <p>{r.explanation}</p>}
      {r.locations.length > 0 && (
        <ul className="locations" aria-label="Locations">
          {r.locations.map((l) => (
            <li key={`${l.file}:${l.line}`}>
              <code>{`${l.file}:${l.line}`}</code>
            </li>
          ))}
        </ul>
      )}
      {r.diff && (
        <>
          <h3>Proposed fix {r.diff_applies ? '' : '(a suggestion: it does not apply cleanly)'}</h3>
          <pre className="diff">
            <code>{r.diff}</code>
          </pre>
        </>
      )}
    </>
  );
}

/** The pull request opened for the issue (GET), and "Open pull request" when a repository is connected and allowed. */
function PullRequestView({ issueId, analysis }: { issueId: string; analysis: Analysis | undefined }) {
  const me = useMe();
  const route = githubClient.issues[':id']['pull-request'];
  const param = { id: encodeURIComponent(issueId) };
  const recorded = useApi((o) => route.$get({ param }, o), [issueId]);
  const [opened, setOpened] = useState<PullRequest>();
  const { run: open, busy, error } = useAction(async () => setOpened(await parseResponse(route.$post({ param }))));
  const pr = opened ?? recorded.data;
  const canOpen = me.features.github && can(me, 'issues.triage') && analysis?.state === 'done';
  return (
    <div className="pull-request">
      <h3>Pull request</h3>
      {pr ? (
        <p>
          <a href={pr.url} target="_blank" rel="noopener noreferrer">
            {`${pr.repository}#${pr.number}`}
          </a>{' '}
          on branch <code>{pr.branch}</code> (commit <code>{pr.commit_sha.slice(0, 7)}</code>); its state is
          GitHub&apos;s.
        </p>
      ) : !me.features.github ? (
        <p className="hint">
          No GitHub repository is connected to an app of this project, so fixes cannot become pull requests.
        </p>
      ) : !can(me, 'issues.triage') ? (
        <p className="hint">Read-only key: opening a pull request needs a control key.</p>
      ) : !canOpen ? (
        <p className="hint">A finished analysis is needed before a pull request can be opened.</p>
      ) : null}
      {recorded.error && <LoadState loading={false} error={recorded.error} />}
      {!pr && canOpen && (
        <button type="button" disabled={busy} onClick={() => void open()}>
          {busy ? 'Opening…' : 'Open pull request'}
        </button>
      )}
      <ActionError error={error} />
    </div>
  );
}

/** Root-cause analysis: the stored one, "Analyse" to ask (model when configured, heuristic otherwise), what was sent. */
export function AnalysisPanel({ issueId }: { issueId: string }) {
  const me = useMe();
  const { analysis, error, loading, reload } = useAnalysis(issueId);
  const {
    run: start,
    busy,
    error: startError,
  } = useAction(async () => {
    await parseResponse(analysisClient[':id'].analysis.$post({ param: { id: encodeURIComponent(issueId) } }));
    reload();
  });
  return (
    <section className="panel" aria-labelledby="analysis-heading">
      <div className="panel-head">
        <h2 id="analysis-heading">Analysis</h2>
        {analysis && (
          <Badge tone={analysis.mode === 'model' ? 'info' : 'neutral'}>
            {analysis.mode === 'model' ? `model ${analysis.model ?? ''}` : 'heuristic'}
          </Badge>
        )}
        {can(me, 'issues.triage') && (
          <button type="button" disabled={busy || unfinished(analysis)} onClick={() => void start()}>
            {analysis ? 'Analyse again' : 'Analyse'}
          </button>
        )}
      </div>
      <p className="hint">
        {me.features.ai_analysis
          ? 'A model configured on the server analyses the issue.'
          : 'No model is configured: the analysis is the detector’s heuristic.'}
        {!can(me, 'issues.triage') && ' Read-only key: starting an analysis needs a control key.'}
      </p>
      <LoadState loading={loading} error={error} />
      <ActionError error={startError} />
      {!loading && !analysis && !error && <p>No analysis yet.</p>}
      {analysis && (
        <>
          <p className="hint">
            Requested {formatTime(analysis.requested_at)}
            {analysis.finished_at && `, finished ${formatTime(analysis.finished_at)}`}
            {analysis.usage &&
              ` · ${analysis.usage.total_tokens} tokens in ${formatDuration(analysis.usage.duration_ms)}`}
          </p>
          <AnalysisResultView analysis={analysis} />
          {analysis.sent ? (
            <details>
              <summary>What was sent to the model</summary>
              <pre className="sent">
                <code>{JSON.stringify(analysis.sent, null, 2)}</code>
              </pre>
            </details>
          ) : (
            analysis.state === 'done' && <p className="hint">Nothing left the server for this analysis.</p>
          )}
        </>
      )}
      <PullRequestView issueId={issueId} analysis={analysis} />
    </section>
  );
}
