import { createRoute } from '@hono/zod-openapi';
import type { Services } from '../http/env';
import { createRouter } from '../http/openapi';
import { idParams } from '../http/schemas';
import { refuseLink, sendPage } from '../incidents/dashboard';
import { incidentLinks, verifyLink } from '../incidents/links';
import { LINK_PAGE_ANSWERS, SignedLinkQuery } from '../incidents/schemas';
import type { SecretBox } from '../secrets/secret-box';
import { issueDetail } from './detail';
import { issuePage, issueTitle } from './page-html';
import { findIssueRow } from './store';

const pageRoute = createRoute({
  method: 'get',
  path: '/issues/{id}',
  tags: ['issues'],
  summary: 'The issue page (an `issue.regressed` `dashboard_url`), through a signed link; GET changes nothing',
  request: { params: idParams('Issue id'), query: SignedLinkQuery },
  responses: LINK_PAGE_ANSWERS,
});

/**
 * `/issues/{id}?p=…&exp=…&sig=…`: the page an `issue.regressed` notification's `dashboard_url` opens, keyless, for
 * whoever received it. It reads the issue detail of the API; a GET never changes anything (mail scanners and chat
 * unfurlers fetch links).
 */
export function issuePages(services: Services, box: SecretBox) {
  return createRouter().openapi(pageRoute, async (c) => {
    const { id } = c.req.valid('param');
    const now = services.clock.now();
    const check = verifyLink(box, now, { kind: 'issue', id, action: 'view' }, c.req.query());
    if (!check.ok) return refuseLink(c, check.reason, 'issue');
    const row = await findIssueRow(services.db, check.projectId, id);
    if (!row) return sendPage(c, 404, 'No such issue', '<h1>This issue no longer exists</h1>');
    const issue = await issueDetail(
      { db: services.db, symbolicator: services.symbolicator, publicUrl: services.publicUrl },
      row,
    );
    const incident =
      issue.incident_id === null
        ? null
        : incidentLinks(box, services.publicUrl, now).dashboardUrl(check.projectId, issue.incident_id);
    return sendPage(c, 200, issueTitle(issue), issuePage(issue, { incident }));
  });
}
