import { Hono, type Context } from 'hono';
import type { AppEnv } from '../http/env';
import type { NotifyServices } from '../notify/services';
import { escapeHtml, incidentPage, page, PAGE_CSP } from './dashboard';
import { incidentLinks, verifyLink, type LinkAction } from './links';

const HEADERS = { 'content-security-policy': PAGE_CSP, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', 'x-content-type-options': 'nosniff' };

const html = (c: Context<AppEnv>, status: 200 | 403 | 404, title: string, body: string) => c.html(page(title, body), status, HEADERS);

/**
 * The pages notification links open, keyless: `/incidents/{id}` (the incident, from its signed `dashboard_url`) and
 * `/incidents/{id}/acknowledge|resolve` (signed action links). A GET never changes anything — mail scanners and chat
 * unfurlers fetch links — it shows a button that POSTs; the voice channel's keypress POSTs `Digits` and gets TwiML.
 */
export function incidentPages(services: NotifyServices) {
  const app = new Hono<AppEnv>();
  const links = () => incidentLinks(services.box, services.publicUrl(), services.clock.now());
  const refused = (c: Context<AppEnv>, reason: 'invalid' | 'expired') =>
    html(c, 403, 'Link not valid', `<h1>This link is ${reason === 'expired' ? 'out of date' : 'not valid'}</h1><p>Open the incident from a newer notification, or from the control-plane API.</p>`);

  app.get('/incidents/test', (c) =>
    html(c, 200, 'Test notification', '<h1>This was a test notification</h1><p>It was sent by <code>POST /control-plane/notifications/{channel_id}/test</code>. Nothing is wrong and there is nothing to do.</p>'),
  );

  app.get('/incidents/:id', async (c) => {
    const id = c.req.param('id');
    const check = verifyLink(services.box, services.clock.now(), id, 'view', c.req.query());
    if (!check.ok) return refused(c, check.reason);
    const incident = await services.incidents.get(check.projectId, id);
    if (!incident) return html(c, 404, 'No such incident', '<h1>This incident no longer exists</h1>');
    const l = links();
    return html(c, 200, incident.title, incidentPage(incident, { acknowledge: l.acknowledgeUrl(check.projectId, id), resolve: l.resolveUrl(check.projectId, id) }));
  });

  for (const action of ['acknowledge', 'resolve'] as const satisfies readonly LinkAction[]) {
    const done = action === 'acknowledge' ? 'acknowledged' : 'resolved';
    app.get(`/incidents/:id/${action}`, (c) => {
      const check = verifyLink(services.box, services.clock.now(), c.req.param('id'), action, c.req.query());
      if (!check.ok) return refused(c, check.reason);
      const url = new URL(c.req.url);
      return html(c, 200, `${action} incident`, `<h1>${escapeHtml(action[0]!.toUpperCase() + action.slice(1))} incident ${escapeHtml(c.req.param('id'))}?</h1><form method="post" action="${escapeHtml(url.pathname + url.search)}"><button>${escapeHtml(action[0]!.toUpperCase() + action.slice(1))}</button></form>`);
    });
    app.post(`/incidents/:id/${action}`, async (c) => {
      const id = c.req.param('id');
      const check = verifyLink(services.box, services.clock.now(), id, action, c.req.query());
      const form = (c.req.header('content-type') ?? '').includes('form') ? await c.req.parseBody() : {};
      if ('Digits' in form) {
        // A voice call's keypress (TwiML <Gather>): 1 confirms, anything else does nothing.
        const confirmed = check.ok && form.Digits === '1' && (await services.incidents[action](check.projectId, id, 'voice')) !== undefined;
        const say = confirmed ? `Incident ${done}. Goodbye.` : check.ok ? 'No action taken. Goodbye.' : 'This link is no longer valid. Goodbye.';
        return c.body(`<?xml version="1.0" encoding="UTF-8"?><Response><Say>${escapeHtml(say)}</Say></Response>`, 200, { 'content-type': 'text/xml' });
      }
      if (!check.ok) return refused(c, check.reason);
      const incident = await services.incidents[action](check.projectId, id, 'link');
      if (!incident) return html(c, 404, 'No such incident', '<h1>This incident no longer exists</h1>');
      return html(c, 200, `Incident ${done}`, `<h1>Incident ${escapeHtml(done)}</h1><p>${escapeHtml(incident.title)} is now ${escapeHtml(incident.status)}.</p><p><a href="${escapeHtml(incident.dashboard_url)}">Open the incident</a></p>`);
    });
  }
  return app;
}
