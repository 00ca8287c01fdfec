import type { InferResponseType } from 'hono/client';
import type { CostImpact, IncidentEvidence, IncidentStatus, RuleEvidence, Severity } from '../../../../src/api-types';
import type { incidentsClient } from '../../api/typed';

/**
 * The answers of `/control-plane/incidents` the incident pages read, as the server's schemas declare them, through the
 * typed client. The schema declares evidence and cost impact as JSON objects; the page reads them as the server's
 * types (`evidenceOf`, `costImpactOf`).
 */

export type { CostImpact, IncidentStatus, RuleEvidence, Severity };
export type Evidence = IncidentEvidence;
export type Incident = InferResponseType<typeof incidentsClient.index.$get, 200>['data'][number];
/** `GET /incidents/{id}`: the incident with the issue it grew from (while it exists) and the latest analysis. */
export type IncidentDetail = InferResponseType<(typeof incidentsClient)[':id']['$get'], 200>;

/** The evidence the server wrote (server/src/incidents/types.ts), which the schema declares as any JSON object. */
const anyEvidenceOf = (incident: Incident) => incident.evidence as Evidence | RuleEvidence | null;
/** An error group's evidence (the detector's); null for an alert rule's incident and one opened through the API. */
export const evidenceOf = (incident: Incident): Evidence | null => {
  const evidence = anyEvidenceOf(incident);
  return evidence === null || 'kind' in evidence ? null : evidence;
};
/** The evidence of an incident an alert rule opened; null for any other. */
export const ruleEvidenceOf = (incident: Incident): RuleEvidence | null => {
  const evidence = anyEvidenceOf(incident);
  return evidence !== null && 'kind' in evidence ? evidence : null;
};
/** The cost impact the server wrote (server/src/cost/impact.ts), which the schema declares as any JSON object. */
export const costImpactOf = (incident: Incident): CostImpact | null => incident.cost_impact as CostImpact | null;

/** The filters' choices, checked against the server's lists; the rule form offers the same severities. */
export const SEVERITIES = [
  'critical',
  'high',
  'medium',
  'low',
  'warning',
  'info',
] as const satisfies readonly Severity[];
export const INCIDENT_STATUSES = [
  'detected',
  'escalated',
  'acknowledged',
  'resolved',
] as const satisfies readonly IncidentStatus[];
