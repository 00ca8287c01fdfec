import type { AlertCondition, AlertQuery, Signal } from '../alerts/rule';
import type { Assignee } from '../assignment/assignee';
import type { CostImpact } from '../cost/impact';

/**
 * Incident severities, most urgent first (the order rules and listings use). Detection opens critical, high and medium;
 * `warning` is also what issue events (a regression) carry, so a rule's severities and the incident filter are one list;
 * external detectors may open any of them (Alertmanager's `warning` maps as is).
 */
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** detected → escalated → acknowledged → resolved; docs/incidents.md has the moves between them. */
export const INCIDENT_STATUSES = ['detected', 'escalated', 'acknowledged', 'resolved'] as const;
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];

/**
 * What happened to an incident, as notification events name it. `incident.created` is SPEC 6's literal; the other
 * three are ours (docs/notifications.md).
 */
export const INCIDENT_EVENTS = [
  'incident.created',
  'incident.escalated',
  'incident.acknowledged',
  'incident.resolved',
] as const;
export type IncidentEventKind = (typeof INCIDENT_EVENTS)[number];

/** Evidence behind a detected incident; the incident's `evidence` in the API and the source of its summary. */
export interface IncidentEvidence {
  /** Error type, normalised message and top frame of the dominant error group. */
  fingerprint: string;
  error_type: string;
  message: string;
  top_frame: string | null;
  /** The top frame's original position and source line, when a source map covered it (docs/source-maps.md). */
  top_frame_source?: { file: string; function: string | null; line: number; column: number; code: string | null };
  /** Errors counted in the detection window when the incident opened (then the running total). */
  error_count: number;
  /** `service.version` of the first error of the group. */
  first_seen_release: string | null;
  first_seen_at: string;
  last_seen_at: string;
  /** The reporter's time of the first error counted for this incident: the burst ran from it to `last_seen_at`. */
  burst_started_at?: string;
  affected_sessions: number;
  /** Up to 10 sample session ids, with a replay link when the session has a replay. */
  sessions: Array<{ session_id: string; replay_url: string | null }>;
  /**
   * Failing requests that preceded the errors in their sessions or the newest error's trace: spans with HTTP status ≥
   * 500 or a network error. Up to 10.
   */
  failing_requests: Array<{
    trace_id: string;
    span_id: string;
    name: string;
    url: string | null;
    status: number | null;
    at: string;
    replay_url: string | null;
  }>;
}

/**
 * Evidence behind an incident an alert rule opened (docs/alerts.md, "Evaluation"): what the rule measures and the
 * values it saw. Numbers as measured (shares as fractions, durations in milliseconds), and as the incident shows them.
 */
export interface RuleEvidence {
  kind: 'alert_rule';
  rule_id: string;
  rule_name: string;
  /** The rule's condition held, or its signal stopped arriving (`no_data: "alert"`). */
  cause: 'condition' | 'no_data';
  signal: Signal;
  query: AlertQuery;
  window_seconds: number;
  condition: AlertCondition;
  /** What is measured, e.g. `p75 LCP`, `span error rate`. */
  measure: string;
  /** The value over the window at the last evaluation; null: no data. */
  value: number | null;
  value_text: string;
  /** The bound the value is compared with: the threshold, or a change rule's baseline moved by its percentage. */
  threshold: number | null;
  threshold_text: string | null;
  /** A change rule's baseline (null without one, or for a threshold rule). */
  baseline: number | null;
  baseline_text: string | null;
  /** The value and the bound when the incident opened: escalation compares with them. */
  value_at_detection: number | null;
  threshold_at_detection: number | null;
  evaluated_at: string;
  /** Console pages with the matching sessions, traces, vitals or issues. */
  links: Array<{ label: string; url: string }>;
}

/** An incident's evidence: an error group's (the detector) or an alert rule's. */
export type AnyEvidence = IncidentEvidence | RuleEvidence;

/** The error group's evidence, or null for an alert rule's incident and one created through the API. */
export const errorEvidence = (evidence: AnyEvidence | null): IncidentEvidence | null =>
  evidence === null || 'kind' in evidence ? null : evidence;

/** What a detector (ours, or an external one through the API) opens an incident with. */
export interface IncidentOpening {
  projectId: string;
  title: string;
  severity: Severity;
  env: string;
  services: string[];
  rootCauseSummary: string;
  /** Detector grouping key: one open incident per key; null for incidents created through the API. */
  fingerprint: string | null;
  evidence: AnyEvidence | null;
  /** A detector's incident starts assigned to its issue's assignee (docs/teams.md, "Ownership"). */
  assigneeId?: string | null;
}

/**
 * The incident moves a detector and the notification integrations (chat buttons, signed links, voice keypress) make.
 * Each move is a no-op returning the incident unchanged when it does not apply (acknowledging an acknowledged
 * incident, resolving a resolved one), so a retried request or a double click changes nothing.
 */
export interface IncidentCommands {
  open(opening: IncidentOpening): Promise<{ id: string; created: boolean }>;
  /** Updates the evidence of an open incident (a detector's running counts) without a notification. */
  update(projectId: string, id: string, evidence: AnyEvidence, rootCauseSummary: string): Promise<void>;
  escalate(projectId: string, id: string, reason: string): Promise<IncidentView | undefined>;
  acknowledge(projectId: string, id: string, by: string): Promise<IncidentView | undefined>;
  resolve(projectId: string, id: string, by: string): Promise<IncidentView | undefined>;
  /** Open incidents (not resolved), most severe first: `/svc status`. */
  listOpen(projectId: string): Promise<IncidentView[]>;
  /** The open incident of a detector key, if any. */
  findOpen(projectId: string, fingerprint: string): Promise<IncidentView | undefined>;
}

/** Computes an incident's cost impact (cost/impact.ts); null when its services have no cost data. */
export type CostImpactOf = (projectId: string, incident: IncidentView) => Promise<CostImpact | null>;

/** An incident as the API returns it. */
export interface IncidentView {
  id: string;
  title: string;
  severity: Severity;
  status: IncidentStatus;
  env: string;
  services: string[];
  root_cause_summary: string;
  dashboard_url: string;
  source: 'detector' | 'api';
  fingerprint: string | null;
  evidence: AnyEvidence | null;
  /**
   * Estimated cost of the incident to its services (cost/impact.ts), in the detail (`GET /incidents/{id}`); null in
   * listings, and when no affected service has cost data.
   */
  cost_impact: CostImpact | null;
  detected_at: string;
  escalated_at: string | null;
  acknowledged_at: string | null;
  acknowledged_by: string | null;
  resolved_at: string | null;
  resolved_by: string | null;
  updated_at: string;
  assignee: Assignee | null;
  assigned_at: string | null;
  assigned_by: string | null;
}
