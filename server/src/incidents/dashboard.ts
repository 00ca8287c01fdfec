import type { Context } from 'hono';
import type { CostImpact } from '../cost/impact';
import type { AnyEvidence, IncidentView, RuleEvidence } from './types';

/** Every value on the page passes here: incident text comes from telemetry, which anyone with an ingest key writes. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);

/** Table rows of cells that are already escaped. */
export const rows = (items: string[][]) =>
  items.map((cells) => `<tr>${cells.map((cell) => `<td>${cell}</td>`).join('')}</tr>`).join('');

/** Pages are plain HTML without script; forms post back to this server only. */
export const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** Headers of every keyless page: no script, never cached, and no referrer carrying a signed query elsewhere. */
export const PAGE_HEADERS = {
  'content-security-policy': PAGE_CSP,
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#1b1f24;overflow-wrap:break-word}
h1{font-size:1.4rem;margin:.2rem 0 1rem;overflow-wrap:anywhere}h2{font-size:1.15rem;margin:1.6rem 0 .5rem}.sev{display:inline-block;padding:.1rem .5rem;border-radius:.3rem;color:#fff;font-weight:600;text-transform:uppercase;font-size:.8rem}
.critical,.regressed{background:#b3261e}.high,.unresolved{background:#d9480f}.medium{background:#b08800}.low{background:#1864ab}.info,.ignored{background:#495057}.resolved{background:#1a7f37}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem}dt{color:#57606a}dd{margin:0;overflow-wrap:anywhere}table{border-collapse:collapse;width:100%}
td,th{border-bottom:1px solid #d0d7de;padding:.3rem;text-align:left;font-size:.9rem;overflow-wrap:anywhere}form{display:inline}button{font:inherit;padding:.4rem 1rem;margin-right:.5rem}
a{color:#0550ae}a:focus-visible,summary:focus-visible,button:focus-visible{outline:2px solid #0550ae;outline-offset:2px}
code,pre{font:.85rem/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}pre{background:#f6f8fa;border:1px solid #d0d7de;border-radius:.3rem;padding:.5rem .6rem;margin:.4rem 0;white-space:pre-wrap;overflow-wrap:anywhere}
.l{display:block;margin:0 -.6rem;padding:0 .6rem 0 calc(.6rem + 5ch);text-indent:-5ch}mark.l{background:#ffebe9;color:inherit;box-shadow:inset 3px 0 #cf222e}
.n{display:inline-block;min-width:4ch;margin-right:1ch;text-indent:0;text-align:right;color:#57606a;user-select:none}th{white-space:nowrap}.crumbs td:nth-child(-n+2){white-space:nowrap}
.frames{list-style:none;padding:0;margin:0}.frames>li{border-bottom:1px solid #d0d7de;padding:.5rem 0}.where{color:#57606a;font-size:.85rem;overflow-wrap:anywhere}
details{margin:.4rem 0}summary{cursor:pointer;color:#57606a}
@media (max-width:40rem){body{margin:1rem auto}dl{grid-template-columns:1fr;gap:0}dd{margin-bottom:.4rem}}`;

export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;
}

/** Answers with a whole page under {@link PAGE_HEADERS}. */
export const sendPage = (c: Context, status: 200 | 403 | 404, title: string, body: string) =>
  c.html(page(title, body), status, PAGE_HEADERS);

/** The answer to a signed link that is altered, made for something else, or out of date. */
export const refuseLink = (c: Context, reason: 'invalid' | 'expired', what: 'incident' | 'issue') =>
  sendPage(
    c,
    403,
    'Link not valid',
    `<h1>This link is ${reason === 'expired' ? 'out of date' : 'not valid'}</h1><p>Open the ${what} from a newer notification, or from the control-plane API.</p>`,
  );

export const link = (href: string | null, text: string) =>
  href ? `<a href="${escapeHtml(href)}" rel="noopener">${escapeHtml(text)}</a>` : escapeHtml(text);

/**
 * The body of the incident page the notifications' `dashboard_url` opens. `links` are signed: the action URLs (POST
 * forms), and the page of the issue the incident grew from, when there is one.
 */
export function incidentPage(
  incident: IncidentView,
  links: { acknowledge: string; resolve: string; issue: string | null },
): string {
  const evidence = incident.evidence === null ? '' : evidenceSection(incident.evidence);
  const open = incident.status !== 'resolved';
  const buttons = open
    ? `<p>${incident.status === 'acknowledged' ? '' : `<form method="post" action="${escapeHtml(links.acknowledge)}"><button>Acknowledge</button></form>`}<form method="post" action="${escapeHtml(links.resolve)}"><button>Resolve</button></form></p>`
    : '';
  return `<p><span class="sev ${escapeHtml(incident.severity)}">${escapeHtml(incident.severity)}</span> ${escapeHtml(incident.status)}</p>
<h1>${escapeHtml(incident.title)}</h1>${buttons}
<dl><dt>Incident</dt><dd>${escapeHtml(incident.id)}</dd><dt>Environment</dt><dd>${escapeHtml(incident.env)}</dd><dt>Services</dt><dd>${escapeHtml(incident.services.join(', ') || '–')}</dd>
${links.issue ? `<dt>Issue</dt><dd>${link(links.issue, 'its stack, source lines and breadcrumbs')}</dd>` : ''}
<dt>Detected</dt><dd>${escapeHtml(incident.detected_at)}</dd>${incident.escalated_at ? `<dt>Escalated</dt><dd>${escapeHtml(incident.escalated_at)}</dd>` : ''}
${incident.acknowledged_at ? `<dt>Acknowledged</dt><dd>${escapeHtml(incident.acknowledged_at)} by ${escapeHtml(incident.acknowledged_by ?? '')}</dd>` : ''}
${incident.resolved_at ? `<dt>Resolved</dt><dd>${escapeHtml(incident.resolved_at)} by ${escapeHtml(incident.resolved_by ?? '')}</dd>` : ''}</dl>
<h2>Root cause</h2><p>${escapeHtml(incident.root_cause_summary || 'No summary.')}</p>${evidence}
${costImpact(incident.cost_impact)}`;
}

/** What the detector saw of an error group, or what an alert rule measured. */
function evidenceSection(evidence: AnyEvidence): string {
  if ('kind' in evidence) return ruleEvidenceSection(evidence);
  const e = evidence;
  return `<h2>Evidence</h2><dl><dt>Error</dt><dd>${escapeHtml(`${e.error_type}: ${e.message}`)}</dd><dt>Top frame</dt><dd>${escapeHtml(e.top_frame ?? 'unknown')}</dd>
<dt>Occurrences</dt><dd>${e.error_count}</dd><dt>First seen</dt><dd>${escapeHtml(e.first_seen_at)} in release ${escapeHtml(e.first_seen_release ?? 'unknown')}</dd>
<dt>Affected sessions</dt><dd>${e.affected_sessions}</dd></dl>
${e.sessions.length ? `<h3>Sessions</h3><table><tr><th>Session</th><th>Replay</th></tr>${rows(e.sessions.map((s) => [escapeHtml(s.session_id), link(s.replay_url, s.replay_url ? 'watch replay' : 'no replay')]))}</table>` : ''}
${e.failing_requests.length ? `<h3>Failing requests</h3><table><tr><th>When</th><th>Request</th><th>Status</th><th>Trace</th><th>Replay</th></tr>${rows(e.failing_requests.map((r) => [escapeHtml(r.at), escapeHtml(r.url ?? r.name), escapeHtml(r.status === null ? 'network error' : String(r.status)), escapeHtml(r.trace_id), link(r.replay_url, r.replay_url ? 'replay' : '–')]))}</table>` : ''}`;
}

/** An alert rule's incident: the rule, what it measures, the values, and the console pages with the telemetry. */
function ruleEvidenceSection(e: RuleEvidence): string {
  const facts: Array<[string, string | null]> = [
    ['Alert rule', e.rule_name],
    ['Measures', `${e.measure} over ${e.window_seconds} s (${e.signal})`],
    ['Value', e.value_text],
    ['Threshold', e.threshold_text],
    ['Baseline', e.baseline_text],
    ['Evaluated', e.evaluated_at],
  ];
  const shown = facts.filter((f): f is [string, string] => f[1] !== null);
  return `<h2>Evidence</h2><dl>${shown.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('')}</dl>
${e.links.length ? `<h3>In the console</h3><ul>${e.links.map((l) => `<li>${link(l.url, l.label)}</li>`).join('')}</ul>` : ''}`;
}

/** The cost at stake, as a sentence and per service (docs/cost.md "Incident cost impact"). */
function costImpact(impact: CostImpact | null): string {
  if (!impact) return '';
  const money = (value: number) => `${escapeHtml(impact.currency)} ${value.toFixed(2)}`;
  const so = impact.ongoing ? 'so far' : 'in all';
  return `<h2>Cost impact</h2><p>About ${money(impact.estimated_cost)} ${so}: the affected services cost ${money(impact.hourly_cost)} an hour, over ${impact.duration_hours} h.</p>
<table><tr><th>Service</th><th>Per hour</th></tr>${rows(impact.services.map((s) => [escapeHtml(s.service), money(s.hourly_cost)]))}</table>
<p>${escapeHtml(`Basis: ${impact.basis.description} (${impact.basis.from} to ${impact.basis.to}).`)}</p>`;
}
