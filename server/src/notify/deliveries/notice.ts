import { randomBytes } from 'node:crypto';
import type { IncidentStore } from '../../incidents/store';
import type { IncidentEventKind, IncidentView } from '../../incidents/types';
import type { IncidentNotice } from '../kinds/types';
import type { DeliveryRow } from './store';

export interface NoticeLinks {
  acknowledgeUrl(projectId: string, incidentId: string): string;
  resolveUrl(projectId: string, incidentId: string): string;
}

/** The link to an incident's root-cause analysis, or null when its issue has none (ai/incident-analysis.ts). */
export type AnalysisLink = (projectId: string, incident: IncidentView) => Promise<string | null>;

/** The notice of an incident delivery, from the incident as it is now (its first attempt). */
export async function incidentNotice(
  incidents: IncidentStore,
  links: NoticeLinks,
  delivery: DeliveryRow,
  analysisLink: AnalysisLink,
): Promise<IncidentNotice | undefined> {
  if (delivery.incident_id === null) return undefined;
  const incident = await incidents.get(delivery.project_id, delivery.incident_id);
  if (!incident) return undefined;
  return {
    payload: {
      event: delivery.event as IncidentEventKind,
      incident_id: incident.id,
      severity: incident.severity,
      title: incident.title,
      services: incident.services,
      env: incident.env,
      root_cause_summary: incident.root_cause_summary,
      dashboard_url: incident.dashboard_url,
    },
    status: incident.status,
    detected_at: incident.detected_at,
    acknowledge_url: links.acknowledgeUrl(delivery.project_id, incident.id),
    resolve_url: links.resolveUrl(delivery.project_id, incident.id),
    test: false,
    actor:
      delivery.event === 'incident.acknowledged'
        ? incident.acknowledged_by
        : delivery.event === 'incident.resolved'
          ? incident.resolved_by
          : null,
    analysis_url: await analysisLink(delivery.project_id, incident),
  };
}

/**
 * The synthetic incident of `POST /notifications/{channel_id}/test` (SPEC 4 rule 3: through the same delivery path).
 * Its links lead to a page saying it was a test; nothing can be acknowledged.
 */
export function testNotice(publicUrl: string, now: number): IncidentNotice {
  const page = `${publicUrl}/incidents/test`;
  return {
    payload: {
      event: 'incident.created',
      incident_id: `inc_test_${randomBytes(6).toString('hex')}`,
      severity: 'info',
      title: 'Test notification from svc',
      services: ['svc'],
      env: 'test',
      root_cause_summary: 'This is a test of the notification channel. Nothing is wrong; no action is needed.',
      dashboard_url: page,
    },
    status: 'detected',
    detected_at: new Date(now).toISOString(),
    acknowledge_url: page,
    resolve_url: page,
    test: true,
    actor: null,
  };
}
