import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
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
  const links = () => incidentLinks(services.box, services.publicUrl(), services.clock.now());
  const refused = (c: Context<AppEnv>, reason: 'invalid' | 'expired') => refuseLink(c, reason, 'incident');
  /** The page of the issue a detected incident grew from. */
  const issueUrl = async (projectId: string, incident: IncidentView): Promise<string | null> => {
    const issue = await issueOfIncident(services.db, projectId, incident);
    return issue
      ? issuePageUrl(services.box, services.publicUrl(), services.clock.now(), projectId, issue.fingerprint)
      : null;
  };

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
    const check = verifyLink(
      services.box,
      services.clock.now(),
      { kind: 'incident', id, action: 'view' },
      c.req.query(),
    );
    if (!check.ok) return refused(c, check.reason);
    const incident = await services.incidents.get(check.projectId, id);
    if (!incident) return html(c, 404, 'No such incident', '<h1>This incident no longer exists</h1>');
    const l = links();
    const issue = await issueUrl(check.projectId, incident);
    const analysis = analysisSection(
      await incidentAnalysis(services.db, check.projectId, incident),
      incident.root_cause_summary,
    );
    return html(
      c,
      200,
      incident.title,
      incidentPage(incident, {
        acknowledge: l.acknowledgeUrl(check.projectId, id),
        resolve: l.resolveUrl(check.projectId, id),
        issue,
      }) + analysis,
    );
  });

  for (const action of ['acknowledge', 'resolve'] as const satisfies readonly LinkAction[]) {
    const done = action === 'acknowledge' ? 'acknowledged' : 'resolved';
    app.openapi(confirmRoute(action), (c) => {
      const check = verifyLink(
        services.box,
        services.clock.now(),
        { kind: 'incident', id: c.req.param('id'), action },
        c.req.query(),
      );
      if (!check.ok) return refused(c, check.reason);
      const url = new URL(c.req.url);
      return html(
        c,
        200,
        `${action} incident`,
        `<h1>${escapeHtml(action[0]!.toUpperCase() + action.slice(1))} incident ${escapeHtml(c.req.param('id'))}?</h1><form method="post" action="${escapeHtml(url.pathname + url.search)}"><button>${escapeHtml(action[0]!.toUpperCase() + action.slice(1))}</button></form>`,
      );
    });
    app.openapi(actRoute(action), async (c) => {
      const { id } = c.req.valid('param');
      const check = verifyLink(services.box, services.clock.now(), { kind: 'incident', id, action }, c.req.query());
      const form = c.req.valid('form');
      if (form.Digits !== undefined) {
        // A voice call's keypress (TwiML <Gather>): 1 confirms, anything else does nothing.
        const confirmed =
          check.ok &&
          form.Digits === '1' &&
          (await services.incidents[action](check.projectId, id, 'voice')) !== undefined;
        const say = confirmed
          ? `Incident ${done}. Goodbye.`
          : check.ok
            ? 'No action taken. Goodbye.'
            : 'This link is no longer valid. Goodbye.';
        return c.body(`<?xml version="1.0" encoding="UTF-8"?><Response><Say>${escapeHtml(say)}</Say></Response>`, 200, {
          'content-type': 'text/xml',
        });
      }
      if (!check.ok) return refused(c, check.reason);
      const incident = await services.incidents[action](check.projectId, id, 'link');
      if (!incident) return html(c, 404, 'No such incident', '<h1>This incident no longer exists</h1>');
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
