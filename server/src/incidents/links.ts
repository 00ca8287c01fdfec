import type { SecretBox } from '../secrets/secret-box';

/** What a signed incident link lets its holder do. */
export type LinkAction = 'view' | 'acknowledge' | 'resolve';

/** How long links stay valid: an incident page link as long as a notification is worth reading, actions a week. */
const LIFETIME_MS: Record<LinkAction, number> = { view: 30 * 24 * 3600_000, acknowledge: 7 * 24 * 3600_000, resolve: 7 * 24 * 3600_000 };

const message = (projectId: string, incidentId: string, action: LinkAction, exp: number) => `${action}.${projectId}.${incidentId}.${exp}`;

/**
 * Links a notification carries: the incident page and its acknowledge and resolve actions, usable without a control
 * key by whoever received the notification (like the signed links of Grafana OnCall or PagerDuty e-mails). A link
 * names its action, incident and project, expires, and is HMAC-signed with the server's secret key.
 */
export function incidentLinks(box: SecretBox, publicUrl: string, now: number) {
  const link = (projectId: string, incidentId: string, action: LinkAction): string => {
    const exp = now + LIFETIME_MS[action];
    const path = action === 'view' ? `/incidents/${incidentId}` : `/incidents/${incidentId}/${action}`;
    return `${publicUrl}${path}?p=${encodeURIComponent(projectId)}&exp=${exp}&sig=${box.sign(message(projectId, incidentId, action, exp))}`;
  };
  return {
    dashboardUrl: (projectId: string, incidentId: string) => link(projectId, incidentId, 'view'),
    acknowledgeUrl: (projectId: string, incidentId: string) => link(projectId, incidentId, 'acknowledge'),
    resolveUrl: (projectId: string, incidentId: string) => link(projectId, incidentId, 'resolve'),
  };
}

/** Checks a link's query; the project it grants, or why not. */
export function verifyLink(
  box: SecretBox,
  now: number,
  incidentId: string,
  action: LinkAction,
  query: { p?: string; exp?: string; sig?: string },
): { ok: true; projectId: string } | { ok: false; reason: 'invalid' | 'expired' } {
  const exp = Number(query.exp);
  if (!query.p || !query.sig || !Number.isSafeInteger(exp)) return { ok: false, reason: 'invalid' };
  if (!box.verify(message(query.p, incidentId, action, exp), query.sig)) return { ok: false, reason: 'invalid' };
  if (exp < now) return { ok: false, reason: 'expired' };
  return { ok: true, projectId: query.p };
}
