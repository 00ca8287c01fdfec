import { describe, expect, it } from 'vitest';
import {
  incidentLinks,
  issuePageUrl,
  verifyLink,
  type LinkQuery,
  type LinkTarget,
} from '../../server/src/incidents/links';
import { createSecretBox } from '../../server/src/secrets/secret-box';

/**
 * The signed links of notifications (server/src/incidents/links.ts): an incident link is signed exactly as before
 * issue pages existed, so links already in people's mailboxes keep opening, and a link made for one kind of page never
 * opens another.
 */
const box = createSecretBox('s'.repeat(40));
const NOW = Date.UTC(2026, 10, 26, 10, 0, 0);
const DAY = 24 * 3600_000;
const PUBLIC = 'https://svc.example.com';
const PROJECT = 'proj_123';
const ID = '0123456789abcdef';

/** The path and the query of a link, as the page route receives them. */
function parse(url: string): { path: string; query: LinkQuery } {
  const u = new URL(url);
  return { path: u.pathname, query: Object.fromEntries(u.searchParams) };
}

describe('signed links', () => {
  it('sign incident links over `<action>.<project>.<incident>.<exp>`, the text links sent before issue pages carry', () => {
    const links = incidentLinks(box, PUBLIC, NOW);
    const cases = [
      { url: links.dashboardUrl(PROJECT, ID), path: `/incidents/${ID}`, action: 'view', lifetime: 30 * DAY },
      {
        url: links.acknowledgeUrl(PROJECT, ID),
        path: `/incidents/${ID}/acknowledge`,
        action: 'acknowledge',
        lifetime: 7 * DAY,
      },
      { url: links.resolveUrl(PROJECT, ID), path: `/incidents/${ID}/resolve`, action: 'resolve', lifetime: 7 * DAY },
    ];
    for (const c of cases) {
      const { path, query } = parse(c.url);
      expect(path).toBe(c.path);
      expect(query).toEqual({
        p: PROJECT,
        exp: String(NOW + c.lifetime),
        sig: box.sign(`${c.action}.${PROJECT}.${ID}.${NOW + c.lifetime}`),
      });
    }
  });

  it('open the issue page with an issue link, for 30 days', () => {
    const { path, query } = parse(issuePageUrl(box, PUBLIC, NOW, PROJECT, ID));
    expect(path).toBe(`/issues/${ID}`);
    expect(query.exp).toBe(String(NOW + 30 * DAY));
    const issue: LinkTarget = { kind: 'issue', id: ID, action: 'view' };
    expect(verifyLink(box, NOW + 30 * DAY, issue, query)).toEqual({ ok: true, projectId: PROJECT });
    expect(verifyLink(box, NOW + 30 * DAY + 1, issue, query)).toEqual({ ok: false, reason: 'expired' });
  });

  it('never open one kind of page with a link made for another, even for the same id', () => {
    const incidentView = parse(incidentLinks(box, PUBLIC, NOW).dashboardUrl(PROJECT, ID)).query;
    const issueView = parse(issuePageUrl(box, PUBLIC, NOW, PROJECT, ID)).query;
    expect(verifyLink(box, NOW, { kind: 'issue', id: ID, action: 'view' }, incidentView)).toEqual({
      ok: false,
      reason: 'invalid',
    });
    expect(verifyLink(box, NOW, { kind: 'incident', id: ID, action: 'view' }, issueView)).toEqual({
      ok: false,
      reason: 'invalid',
    });
    expect(verifyLink(box, NOW, { kind: 'incident', id: ID, action: 'view' }, incidentView)).toEqual({
      ok: true,
      projectId: PROJECT,
    });
  });

  it('refuse a link whose project, id, expiry or signature was changed, or that was signed with another key', () => {
    const { query } = parse(issuePageUrl(box, PUBLIC, NOW, PROJECT, ID));
    const issue = (id: string): LinkTarget => ({ kind: 'issue', id, action: 'view' });
    const refused = { ok: false, reason: 'invalid' };
    expect(verifyLink(box, NOW, issue(ID), { ...query, p: 'proj_other' })).toEqual(refused);
    expect(verifyLink(box, NOW, issue('fedcba9876543210'), query)).toEqual(refused);
    expect(verifyLink(box, NOW, issue(ID), { ...query, exp: String(Number(query.exp) + DAY) })).toEqual(refused);
    const sig = query.sig!;
    expect(
      verifyLink(box, NOW, issue(ID), { ...query, sig: (sig.startsWith('A') ? 'B' : 'A') + sig.slice(1) }),
    ).toEqual(refused);
    expect(verifyLink(createSecretBox('t'.repeat(40)), NOW, issue(ID), query)).toEqual(refused);
    expect(verifyLink(box, NOW, issue(ID), { p: PROJECT, exp: 'soon', sig: query.sig })).toEqual(refused);
    expect(verifyLink(box, NOW, issue(ID), {})).toEqual(refused);
  });
});
