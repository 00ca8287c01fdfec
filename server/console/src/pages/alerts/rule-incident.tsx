import { useState } from 'react';
import { Link } from 'wouter';
import { alertRulesClient } from '../../api/typed';
import { useApi } from '../../api/use-api';
import { formatTime } from '../../ui/format';
import { LoadState } from '../../ui/status';
import type { IncidentDetail } from '../incidents/types';
import { PreviewChart } from './preview-chart';
import { valueText } from './rule-text';
import type { PreviewRule, RuleEvidence } from './types';

const HOUR_MS = 3_600_000;
/** How much of the rule's query the incident shows before its start, and after it (or its end). */
const BEFORE_MS = 6 * HOUR_MS;
const AFTER_MS = 2 * HOUR_MS;

/**
 * The range around an incident: from 6 hours before it opened to 2 hours after it resolved (or opened, while open),
 * never past now.
 */
function rangeOf(incident: IncidentDetail): { from: string; to: string } {
  const start = Date.parse(incident.detected_at);
  const end = incident.resolved_at ? Date.parse(incident.resolved_at) : start;
  const to = Math.max(Math.min(end + AFTER_MS, Date.now()), start + 60_000);
  return { from: new Date(start - BEFORE_MS).toISOString(), to: new Date(to).toISOString() };
}

/** The rule's query around the incident's start, as the rule stood when it fired (its evidence). */
function RuleChart({ incident, evidence }: { incident: IncidentDetail; evidence: RuleEvidence }) {
  // The rule's `for` and recovery, when it still exists: the firings then match the incident's.
  const stored = useApi(
    (o) => alertRulesClient[':id'].$get({ param: { id: encodeURIComponent(evidence.rule_id) } }, o),
    [evidence.rule_id],
  );
  const settled = stored.data !== undefined || stored.error !== undefined;
  const rule: PreviewRule = {
    signal: evidence.signal,
    query: evidence.query,
    window_seconds: evidence.window_seconds,
    condition: evidence.condition,
    for_seconds: stored.data?.for_seconds ?? 0,
    recovery: stored.data?.recovery ?? null,
  };
  // Fixed when shown: an open incident's range ends now, which must not move with each render.
  const [range] = useState(() => rangeOf(incident));
  const json = { ...rule, ...range };
  const preview = useApi(settled ? (o) => alertRulesClient.preview.$post({ json }, o) : null, [json]);
  return (
    <>
      <LoadState loading={!settled || (preview.loading && !preview.data)} error={preview.error} />
      {preview.data && (
        <PreviewChart
          rule={rule}
          preview={preview.data}
          title={`${evidence.measure} from ${formatTime(range.from)} to ${formatTime(range.to)}`}
        />
      )}
    </>
  );
}

/** An alert rule's incident: the rule, what it measured against what, the console pages to look at, and the chart. */
export function RuleIncident({ incident, evidence }: { incident: IncidentDetail; evidence: RuleEvidence }) {
  return (
    <section className="panel" aria-labelledby="rule-evidence-heading">
      <h2 id="rule-evidence-heading">Alert rule</h2>
      <dl className="facts">
        <dt>Rule</dt>
        <dd>
          <Link href={`/alert/${encodeURIComponent(evidence.rule_id)}`}>{evidence.rule_name}</Link>
        </dd>
        <dt>Measures</dt>
        <dd>{evidence.measure}</dd>
        <dt>{evidence.cause === 'no_data' ? 'Cause' : 'When it opened'}</dt>
        <dd>
          {evidence.cause === 'no_data'
            ? 'No data: the signal stopped arriving'
            : `${valueText(evidence, evidence.value_at_detection)} against ${valueText(evidence, evidence.threshold_at_detection)}`}
        </dd>
        <dt>Latest value</dt>
        <dd>
          {evidence.value_text}
          {evidence.threshold_text && ` against ${evidence.threshold_text}`}
          {evidence.baseline_text && ` (baseline ${evidence.baseline_text})`},{' '}
          <time dateTime={evidence.evaluated_at}>{formatTime(evidence.evaluated_at)}</time>
        </dd>
      </dl>
      {evidence.links.length > 0 && (
        <ul className="session-links" aria-label="Where to look">
          {evidence.links.map((l) => (
            <li key={l.url}>
              <a href={l.url}>{l.label}</a>
            </li>
          ))}
        </ul>
      )}
      <h3>Around its start</h3>
      <RuleChart incident={incident} evidence={evidence} />
    </section>
  );
}
