import { createRoute, z } from '@hono/zod-openapi';
import { afterCommit } from '../db/request-transaction';
import type { Services } from '../http/env';
import { createRouter, errors, jsonAnswer, jsonBody, needs, readControlJson } from '../http/openapi';
import { listOf } from '../http/schemas';
import { tenantNamed } from '../projects/store';
import { authorityOf } from './authority';
import { createInvitation, listInvitations, withdrawInvitation, type Invitation } from './invitations';
import { invitationJson, InvitationSchema, ProjectLimit, Role } from './schemas';

const tags = ['members'];

const inviteRoute = createRoute({
  ...needs('members.manage'),
  tags,
  middleware: [readControlJson],
  method: 'post',
  path: '/',
  summary: 'Invite a person by e-mail; the link is shown this once',
  description:
    'The link works once, for 7 days, and replaces any pending invitation of the same address. It is e-mailed when the server has SMTP ' +
    '(SVC_SMTP_URL); either way the answer carries it, for the inviter to pass on. A role may invite only to roles at or below its own (403).',
  request: {
    body: jsonBody(
      z.strictObject({
        email: z.email({ error: 'email must be an e-mail address' }).max(254),
        role: Role,
        projects: ProjectLimit.optional(),
      }),
      { email: 'ada@example.com', role: 'member' },
    ),
  },
  responses: {
    201: jsonAnswer(
      'Invited',
      InvitationSchema.extend({
        link: z.string().openapi({ description: 'The invitation link, shown this once: only its hash is stored' }),
        mailed: z.boolean().openapi({
          description:
            'Whether it is e-mailed: true when the server has SMTP, the mail going out once the invitation is stored (a refusal by the mail server is logged; the link stays valid)',
        }),
      }),
    ),
    ...errors(400, 401, 403, 409, 413, 415),
  },
});

const listRoute = createRoute({
  ...needs('members.manage'),
  tags,
  method: 'get',
  path: '/',
  summary: 'Pending invitations: neither accepted, withdrawn nor expired',
  description: 'Newest first. Their links are not shown again.',
  responses: { 200: jsonAnswer('Invitations', listOf(InvitationSchema)), ...errors(401, 403) },
});

const withdrawRoute = createRoute({
  ...needs('members.manage'),
  tags,
  method: 'delete',
  path: '/{id}',
  summary: 'Withdraw a pending invitation: its link stops working',
  request: { params: z.object({ id: z.string().min(1).openapi({ description: 'Invitation id' }) }) },
  responses: { 204: { description: 'Withdrawn' }, ...errors(400, 401, 403, 404) },
});

/**
 * Mails the invitation once it has committed (a mail server that takes its time then holds no database lock); false
 * when the server cannot send mail. A refusal is logged: the inviter has the link either way.
 */
function mailInvitation(
  services: Services,
  invite: { invitation: Invitation; link: string; tenantId: string; from: string },
): boolean {
  const { mailer } = services;
  if (!mailer) return false;
  const send = async () => {
    const organisation = (await tenantNamed(services.db, invite.tenantId)).name;
    const text = [
      `${invite.from} invited you to ${organisation} on svc, as ${invite.invitation.role}.`,
      '',
      `Join within 7 days (the link works once): ${invite.link}`,
      '',
      'If you did not expect this, ignore this message.',
    ].join('\n');
    await mailer.sendMail(invite.invitation.email, `You are invited to ${organisation}`, text);
  };
  afterCommit(
    () =>
      void send().catch((err: unknown) =>
        services.log(`invitation to ${invite.invitation.email} not mailed: ${(err as Error).message}`),
      ),
  );
  return true;
}

/** `/control-plane/members/invitations` (docs/teams.md, "Members and invitations"). */
export function inviteRoutes(services: Services) {
  const { db, clock } = services;
  return createRouter()
    .openapi(inviteRoute, async (c) => {
      const { tenantId, actor } = c.get('caller');
      const { email, role, projects } = c.req.valid('json');
      const { invitation, token } = await createInvitation(db, clock, {
        tenantId,
        by: authorityOf(actor),
        email,
        role,
        ...(projects !== undefined ? { projects } : {}),
      });
      const link = `${services.publicUrl}/join#token=${token}`;
      c.set('audit', { after: { email: invitation.email, role: invitation.role, projects: invitation.projects } });
      const from = actor.kind === 'person' ? `${actor.person.name} (${actor.person.email})` : 'An administrator';
      const mailed = mailInvitation(services, { invitation, link, tenantId, from });
      return c.json({ ...invitationJson(invitation), link, mailed }, 201);
    })
    .openapi(listRoute, async (c) =>
      c.json({ data: (await listInvitations(db, clock, c.get('caller').tenantId)).map(invitationJson) }, 200),
    )
    .openapi(withdrawRoute, async (c) => {
      const { tenantId, actor } = c.get('caller');
      const gone = await withdrawInvitation(db, clock, {
        tenantId,
        by: authorityOf(actor),
        id: c.req.valid('param').id,
      });
      c.set('audit', { before: { email: gone.email, role: gone.role, projects: gone.projects } });
      return c.body(null, 204);
    });
}
