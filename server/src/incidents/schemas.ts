import { z } from '@hono/zod-openapi';
import { assignmentFields } from '../assignment/schemas';
import { AnyObject, Time, TimeOrNull } from '../http/schemas';
import { INCIDENT_STATUSES, SEVERITIES } from './types';

/** The incident listing's orders: when detected, how severe (SEVERITIES' order), when last changed. */
export const INCIDENT_SORTS = ['detected', 'severity', 'updated'] as const;
export type IncidentSort = (typeof INCIDENT_SORTS)[number];

/** An incident as the API shows it (docs/incidents.md). */
export const Incident = z
  .object({
    id: z.string(),
    title: z.string(),
    severity: z.enum(SEVERITIES),
    status: z.enum(INCIDENT_STATUSES),
    env: z.string(),
    services: z.array(z.string()),
    root_cause_summary: z.string(),
    dashboard_url: z.string().openapi({ format: 'uri' }),
    source: z.enum(['detector', 'api']),
    fingerprint: z.string().nullable(),
    evidence: AnyObject.nullable().openapi({ description: 'docs/incidents.md, "Evidence and root-cause summary"' }),
    cost_impact: AnyObject.nullable().openapi({
      description: 'docs/cost.md: the spend of the affected services during the incident; null in listings',
    }),
    detected_at: Time,
    escalated_at: TimeOrNull,
    acknowledged_at: TimeOrNull,
    acknowledged_by: z.string().nullable(),
    resolved_at: TimeOrNull,
    resolved_by: z.string().nullable(),
    updated_at: Time,
    ...assignmentFields,
  })
  .openapi('Incident');

/**
 * The query of a signed, keyless link (incidents/links.ts). Each part is optional here: a person opens these links, so
 * a missing or altered part gets the HTML "link not valid" page (403), not a JSON 400.
 */
export const SignedLinkQuery = z.object({
  p: z.string().optional().openapi({ description: 'Project' }),
  exp: z.string().optional().openapi({ description: 'Expiry, epoch ms' }),
  sig: z.string().optional().openapi({ description: 'HMAC signature' }),
});

/** The answers of a page a signed link opens. */
export const LINK_PAGE_ANSWERS = {
  200: { description: 'HTML', content: { 'text/html': { schema: z.string() } } },
  403: { description: 'Altered or expired link (an HTML page)', content: { 'text/html': { schema: z.string() } } },
  404: { description: 'The object no longer exists (an HTML page)', content: { 'text/html': { schema: z.string() } } },
};
