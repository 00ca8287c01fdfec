import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { auditedMove } from '../audit/record-keyless';
import { analysisSection, incidentAnalysis } from '../ai/incident-analysis';
import type { AppEnv } from '../http/env';
import { createRouter } from '../http/openapi';
import { idParams } from '../http/schemas';
import type { NotifyServices } from '../notify/services';
import { issueOfIncident } from '../issues/store';
import { escapeHtml, incidentPage, refuseLink, sendPage as html } from './dashboard';
import { incidentLinks, issuePageUrl, verifyLink, type LinkAction } from './links';
import { LINK_PAGE_ANSWERS, SignedLinkQuery } from './schemas';
import type { IncidentView } from './types';

const tags = ['incidents'];
const request = { params: idParams('Incident id'), query: SignedLinkQuery };

const testPageRoute = createRoute({
  method: 'get',
  path: '/incidents/test',
  tags,
  summary: 'The page test notifications link to',
  responses: { 200: LINK_PAGE_ANSWERS[200] },
});

const pageRoute = createRoute({
  method: 'get',
  path: '/incidents/{id}',
  tags,
  summary: 'The incident page (`dashboard_url`), through a signed link',
  request,
  responses: LINK_PAGE_ANSWERS,
});

const confirmRoute = (action: LinkAction) =>
  createRoute({
    method: 'get',
    path: `/incidents/{id}/${action}`,
    tags,
    summary: `Signed ${action} link: a confirmation page (GET changes nothing)`,
    request,
    responses: LINK_PAGE_ANSWERS,
  });

const actRoute = (action: LinkAction) =>
  createRoute({
    method: 'post',
    path: `/incidents/{id}/${action}`,
    tags,
    summary: `${action} through a signed link; a form with \`Digits\` (a voice keypress) is answered with TwiML`,
    request: {
      ...request,
      body: {
        required: false,
        content: {
          'application/x-www-form-urlencoded': {
            schema: z.object({ Digits: z.string().optional().openapi({ description: 'The key pressed; 1 confirms' }) }),
            example: { Digits: '1' },
          },
        },
      },
    },
    responses: {
      ...LINK_PAGE_ANSWERS,
      200: {
        description: 'HTML, or TwiML for a keypress',
        content: { 'text/html': { schema: z.string() }, 'text/xml': { schema: z.string() } },
      },
    },
  });

/**
 * The pages notification links open, keyless: `/incidents/{id}` (the incident, from its signed `dashboard_url`) and
 * `/incidents/{id}/acknowledge|resolve` (signed action links). A GET never changes anything — mail scanners and chat
 * unfurlers fetch links — it shows a button that POSTs; the voice channel's keypress POSTs `Digits` and gets TwiML.
 */
export function incidentPages(services: NotifyServices) {
  const app = createRouter();
  const verify = (c: Context<AppEnv>, id: string, action: LinkAction) =>
    verifyLink(services.box, services.clock.now(), { kind: 'incident', id, action }, c.req.query());
  const refused = (c: Context<AppEnv>, reason: 'invalid' | 'expired') => refuseLink(c, reason, 'incident');
  const gone = (c: Context<AppEnv>) => html(c, 404, 'No such incident', '<h1>This incident no longer exists</h1>');

  app.openapi(testPageRoute, (c) =>
    html(
      c,
      200,
      'Test notification',
      '<h1>This was a test notification</h1><p>It was sent by <code>POST /control-plane/notifications/{channel_id}/test</code>. Nothing is wrong and there is nothing to do.</p>',
    ),
  );

  app.openapi(pageRoute, async (c) => {
    const { id } = c.req.valid('param');
    const check = verify(c, id, 'view');
    if (!check.ok) return refused(c, check.reason);
    const incident = await services.incidents.get(check.projectId, id);
    if (!incident) return gone(c);
    return html(c, 200, incident.title, await incidentPageBody(services, check.projectId, id, incident));
  });

  for (const action of ['acknowledge', 'resolve'] as const satisfies readonly LinkAction[]) {
    const done = action === 'acknowledge' ? 'acknowledged' : 'resolved';
    const operation = `POST /incidents/{id}/${action}`;
    app.openapi(confirmRoute(action), (c) => {
      const check = verify(c, c.req.param('id'), action);
      if (!check.ok) return refused(c, check.reason);
      const url = new URL(c.req.url);
      return html(c, 200, `${action} incident`, confirmationForm(action, c.req.param('id'), url.pathname + url.search));
    });
    app.openapi(actRoute(action), async (c) => {
      const { id } = c.req.valid('param');
      const check = verify(c, id, action);
      const { Digits } = c.req.valid('form');
      const move = (projectId: string, by: 'voice' | 'link') =>
        auditedMove(
          services,
          c,
          { projectId, incidentId: id, operation, actor: { kind: 'link', id: by, label: by } },
          () => services.incidents[action](projectId, id, by),
        );
      if (Digits !== undefined) {
        // A voice call's keypress (TwiML <Gather>): 1 confirms, anything else does nothing.
        const confirmed = check.ok && Digits === '1' && (await move(check.projectId, 'voice')) !== undefined;
        return c.body(twimlSay(keypressReply(check.ok, confirmed, done)), 200, { 'content-type': 'text/xml' });
      }
      if (!check.ok) return refused(c, check.reason);
      const incident = await move(check.projectId, 'link');
      if (!incident) return gone(c);
      return html(
        c,
        200,
        `Incident ${done}`,
        `<h1>Incident ${escapeHtml(done)}</h1><p>${escapeHtml(incident.title)} is now ${escapeHtml(incident.status)}.</p><p><a href="${escapeHtml(incident.dashboard_url)}">Open the incident</a></p>`,
      );
    });
  }
  return app;
}

/** The incident page: the incident with its action links, the issue it grew from if detected, and its analysis. */
async function incidentPageBody(
  services: NotifyServices,
  projectId: string,
  id: string,
  incident: IncidentView,
): Promise<string> {
  const links = incidentLinks(services.box, services.publicUrl(), services.clock.now());
  const issue = await issueOfIncident(services.db, projectId, incident);
  const issueUrl = issue
    ? issuePageUrl(services.box, services.publicUrl(), services.clock.now(), projectId, issue.fingerprint)
    : null;
  const analysis = analysisSection(
    await incidentAnalysis(services.db, projectId, incident),
    incident.root_cause_summary,
  );
  return (
    incidentPage(incident, {
      acknowledge: links.acknowledgeUrl(projectId, id),
      resolve: links.resolveUrl(projectId, id),
      issue: issueUrl,
    }) + analysis
  );
}

/** What a GET of an action link shows: a button that POSTs to the same signed URL (`target`). */
export function confirmationForm(action: LinkAction, id: string, target: string): string {
  const verb = escapeHtml(action[0]!.toUpperCase() + action.slice(1));
  return `<h1>${verb} incident ${escapeHtml(id)}?</h1><form method="post" action="${escapeHtml(target)}"><button>${verb}</button></form>`;
}

/** What the voice call says after a keypress on an action link. */
export function keypressReply(linkValid: boolean, confirmed: boolean, done: string): string {
  if (confirmed) return `Incident ${done}. Goodbye.`;
  return linkValid ? 'No action taken. Goodbye.' : 'This link is no longer valid. Goodbye.';
}

export const twimlSay = (say: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><Response><Say>${escapeHtml(say)}</Say></Response>`;
