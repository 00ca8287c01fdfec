/** The answers of `/control-plane/incidents` the incident pages read (server/src/incidents/schemas.ts, types.ts). */

export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export const INCIDENT_STATUSES = ['detected', 'escalated', 'acknowledged', 'resolved'] as const;
export type Severity = (typeof SEVERITIES)[number];
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];

export interface Evidence {
  fingerprint: string;
  error_type: string;
  message: string;
  top_frame: string | null;
  top_frame_source?: { file: string; function: string | null; line: number; column: number; code: string | null };
  error_count: number;
  first_seen_release: string | null;
  first_seen_at: string;
  last_seen_at: string;
  affected_sessions: number;
  sessions: Array<{ session_id: string; replay_url: string | null }>;
  failing_requests: Array<{ trace_id: string; span_id: string; name: string; url: string | null; status: number | null; at: string; replay_url: string | null }>;
}

export interface CostImpact {
  currency: string;
  hourly_cost: number;
  duration_hours: number;
  estimated_cost: number;
  ongoing: boolean;
  services: Array<{ service: string; hourly_cost: number; env_specific: boolean }>;
  basis: { days: number; from: string; to: string; description: string };
}

export interface Incident {
  id: string;
  title: string;
  severity: Severity;
  status: IncidentStatus;
  env: string;
  services: string[];
  root_cause_summary: string;
  source: 'detector' | 'api';
  fingerprint: string | null;
  evidence: Evidence | null;
  cost_impact: CostImpact | null;
  detected_at: string;
  escalated_at: string | null;
  acknowledged_at: string | null;
  acknowledged_by: string | null;
  resolved_at: string | null;
  resolved_by: string | null;
  updated_at: string;
}

export interface IncidentDetail extends Incident {
  /** The issue it grew from, while it exists (absent on servers before it was added). */
  issue_id?: string | null;
  analysis: { state: string; mode: string; model: string | null; result: { root_cause: string; explanation: string } | null } | null;
}
