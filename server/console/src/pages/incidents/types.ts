import type { z } from 'zod';
import type { IncidentAnalysis } from '../../../../src/ai/schemas';
import type { CostImpact } from '../../../../src/cost/impact';
import type { IncidentEvidence, IncidentStatus, IncidentView, Severity } from '../../../../src/incidents/types';

/**
 * The answers of `/control-plane/incidents` the incident pages read: the server's own types (server/src/incidents/
 * types.ts, cost/impact.ts, ai/schemas.ts), imported as types only, so a renamed field breaks this build.
 */

export type { CostImpact, IncidentStatus, Severity };
export type Evidence = IncidentEvidence;
export type Incident = IncidentView;

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

/** `GET /incidents/{id}`: the incident with the issue it grew from (while it exists) and the issue's latest analysis. */
export interface IncidentDetail extends Incident {
  issue_id: string | null;
  analysis: z.output<typeof IncidentAnalysis>;
}
