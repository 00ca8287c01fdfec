import type { SecretBox } from '../secrets/secret-box';

/** What a signed incident link lets its holder do. */
export type LinkAction = 'view' | 'acknowledge' | 'resolve';

/** What a signed link opens: an incident's page or action, or an issue's page (issues have no actions by link). */
export type LinkTarget =
  | { kind: 'incident'; id: string; action: LinkAction }
  | { kind: 'issue'; id: string; action: 'view' };

/** A link's query: the project it grants, when it expires (epoch ms), and the signature. */
export interface LinkQuery {
  p?: string;
  exp?: string;
  sig?: string;
}

/** How long links stay valid: a page link as long as a notification is worth reading, actions a week. */
const LIFETIME_MS: Record<LinkAction, number> = {
  view: 30 * 24 * 3600_000,
  acknowledge: 7 * 24 * 3600_000,
  resolve: 7 * 24 * 3600_000,
};

/**
 * The signed text. Incident links came first and their text names no kind; it stays byte for byte as it was, so links
 * already sent keep opening. Every other kind leads with its name, which no action shares, so a link of one kind never
 * verifies as another's.
 */
function message(projectId: string, target: LinkTarget, exp: number): string {
  const signed = `${target.action}.${projectId}.${target.id}.${exp}`;
  return target.kind === 'incident' ? signed : `${target.kind}.${signed}`;
}

function pathOf(target: LinkTarget): string {
  if (target.kind === 'issue') return `/issues/${target.id}`;
  return target.action === 'view' ? `/incidents/${target.id}` : `/incidents/${target.id}/${target.action}`;
}

/** A keyless link to `target` in `projectId`: names its project, expires, and is HMAC-signed with the server's secret key. */
export function signedLink(
  box: SecretBox,
  publicUrl: string,
  now: number,
  projectId: string,
  target: LinkTarget,
): string {
  const exp = now + LIFETIME_MS[target.action];
  return `${publicUrl}${pathOf(target)}?p=${encodeURIComponent(projectId)}&exp=${exp}&sig=${box.sign(message(projectId, target, exp))}`;
}

/**
 * Links a notification carries: the incident page and its acknowledge and resolve actions, usable without a control
 * key by whoever received the notification (like the signed links of Grafana OnCall or PagerDuty e-mails).
 */
export function incidentLinks(box: SecretBox, publicUrl: string, now: number) {
  const link = (projectId: string, id: string, action: LinkAction) =>
    signedLink(box, publicUrl, now, projectId, { kind: 'incident', id, action });
  return {
    dashboardUrl: (projectId: string, incidentId: string) => link(projectId, incidentId, 'view'),
    acknowledgeUrl: (projectId: string, incidentId: string) => link(projectId, incidentId, 'acknowledge'),
    resolveUrl: (projectId: string, incidentId: string) => link(projectId, incidentId, 'resolve'),
  };
}

/** The keyless page of an issue, as an `issue.regressed` notification links it (docs/issues.md). */
export const issuePageUrl = (
  box: SecretBox,
  publicUrl: string,
  now: number,
  projectId: string,
  issueId: string,
): string => signedLink(box, publicUrl, now, projectId, { kind: 'issue', id: issueId, action: 'view' });

/** Checks a link's query against what it is meant to open; the project it grants, or why not. */
export function verifyLink(
  box: SecretBox,
  now: number,
  target: LinkTarget,
  query: LinkQuery,
): { ok: true; projectId: string } | { ok: false; reason: 'invalid' | 'expired' } {
  const exp = Number(query.exp);
  if (!query.p || !query.sig || !Number.isSafeInteger(exp)) return { ok: false, reason: 'invalid' };
  if (!box.verify(message(query.p, target, exp), query.sig)) return { ok: false, reason: 'invalid' };
  if (exp < now) return { ok: false, reason: 'expired' };
  return { ok: true, projectId: query.p };
}
