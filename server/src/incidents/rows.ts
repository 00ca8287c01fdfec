import type { Selectable } from 'kysely';
import { assigneeOfRow } from '../assignment/assignee';
import { assignmentJson } from '../assignment/schemas';
import type { Database } from '../db/schema';
import {
  SEVERITIES,
  type AnyEvidence,
  type IncidentEventKind,
  type IncidentOpening,
  type IncidentView,
  type Severity,
} from './types';

/** An incident as stored. */
export type IncidentRow = Selectable<Database['incidents']>;
/** An incident as read, with its assignee's account (null when unassigned). */
export type IncidentReadRow = IncidentRow & { assignee_email: string | null; assignee_name: string | null };

/** An incident event, handed to the notification scheduler inside the transaction that made it. */
export interface IncidentEvent {
  projectId: string;
  incidentId: string;
  event: IncidentEventKind;
  atMs: number;
  severity: Severity;
  env: string;
  services: string[];
  /** Rules may route by it (notify/rules/match.ts). */
  assigneeId: string | null;
}

/** Who the history names when a detector's incident takes its issue's assignee. */
const DETECTOR = 'detector';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** An incident as the API shows it, with its signed page link; its cost impact is filled in when it is read alone. */
export function incidentView(row: IncidentReadRow, dashboardUrl: string): IncidentView {
  return {
    id: row.id,
    title: row.title,
    severity: row.severity as Severity,
    status: row.status as IncidentView['status'],
    env: row.env,
    services: JSON.parse(row.services) as string[],
    root_cause_summary: row.root_cause_summary,
    dashboard_url: dashboardUrl,
    source: row.source as IncidentView['source'],
    fingerprint: row.fingerprint,
    evidence: row.evidence === null ? null : (JSON.parse(row.evidence) as AnyEvidence),
    cost_impact: null,
    detected_at: iso(row.detected_ms)!,
    escalated_at: iso(row.escalated_ms),
    acknowledged_at: iso(row.acknowledged_ms),
    acknowledged_by: row.acknowledged_by,
    resolved_at: iso(row.resolved_ms),
    resolved_by: row.resolved_by,
    updated_at: iso(row.updated_ms)!,
    ...assignmentJson(assigneeOfRow(row), row),
  };
}

/** The event `kind` of the incident at `atMs`. */
export const incidentEvent = (row: IncidentRow, kind: IncidentEventKind, atMs: number): IncidentEvent => ({
  projectId: row.project_id,
  incidentId: row.id,
  event: kind,
  atMs,
  severity: row.severity as Severity,
  env: row.env,
  services: JSON.parse(row.services) as string[],
  assigneeId: row.assignee_id,
});

/**
 * A new incident, `detected` at `nowMs`. A detector's incident has an open key (project and fingerprint), unique
 * while it is open, so that processes opening the same burst at once open it once; one made through the API has none.
 */
export function newIncidentRow(opening: IncidentOpening, id: string, nowMs: number): IncidentRow {
  return {
    id,
    project_id: opening.projectId,
    title: opening.title,
    severity: opening.severity,
    status: 'detected',
    env: opening.env,
    services: JSON.stringify(opening.services),
    root_cause_summary: opening.rootCauseSummary,
    source: opening.fingerprint === null ? 'api' : 'detector',
    fingerprint: opening.fingerprint,
    open_key: opening.fingerprint === null ? null : openKey(opening.projectId, opening.fingerprint),
    evidence: opening.evidence === null ? null : JSON.stringify(opening.evidence),
    cost_impact: null,
    detected_ms: nowMs,
    escalated_ms: null,
    acknowledged_ms: null,
    acknowledged_by: null,
    resolved_ms: null,
    resolved_by: null,
    updated_ms: nowMs,
    assignee_id: opening.assigneeId ?? null,
    assigned_ms: opening.assigneeId ? nowMs : null,
    assigned_by: opening.assigneeId ? DETECTOR : null,
  };
}

/** The open key of a detector's incident: one open incident per project and fingerprint. */
export const openKey = (projectId: string, fingerprint: string) => `${projectId}:${fingerprint}`;

/** Open incidents' order for `/svc status`: most severe first, then newest first. */
export function byUrgency(a: IncidentRow, b: IncidentRow): number {
  const rank = (s: string) => SEVERITIES.indexOf(s as Severity);
  return rank(a.severity) - rank(b.severity) || b.detected_ms - a.detected_ms;
}
