import { createRoute, z } from '@hono/zod-openapi';
import { revokeSessions } from '../auth/console-sessions';
import { clearSessionCookie } from '../auth/session-cookie';
import { actorLabel, type Services } from '../http/env';
import { createRouter, errors, jsonAnswer, jsonBody, needs, readControlJson } from '../http/openapi';
import { requirePermission } from '../http/permissions';
import { listOf } from '../http/schemas';
import { authorityOf } from './authority';
import { memberJson, MemberSchema, ProjectLimit, Role } from './schemas';
import { changeMember, findMember, listMembers, removeMember } from './store';

const tags = ['members'];
const userParams = z.object({ user_id: z.string().min(1).openapi({ description: "The member's user id" }) });

const listRoute = createRoute({
  ...needs('project.view'),
  tags,
  method: 'get',
  path: '/',
  summary: 'Members of the organisation, their role and project limit',
  description: 'Longest-standing first.',
  responses: { 200: jsonAnswer('Members', listOf(MemberSchema)), ...errors(401, 403) },
});

const changeRoute = createRoute({
  ...needs('members.manage'),
  tags,
  middleware: [readControlJson],
  method: 'patch',
  path: '/{user_id}',
  summary: "Change a member's role or project limit",
  description:
    'A role may grant only roles at or below its own, and only an owner changes an owner (403). The last owner cannot be demoted (409 naming them).',
  request: {
    params: userParams,
    body: jsonBody(z.strictObject({ role: Role.optional(), projects: ProjectLimit.optional() }), {
      role: 'member',
      projects: null,
    }),
  },
  responses: { 200: jsonAnswer('The member', MemberSchema), ...errors(400, 401, 403, 404, 409, 413, 415) },
});

const removeRoute = createRoute({
  // Everyone may leave; removing someone else takes members.manage, checked in the handler.
  ...needs('project.view'),
  tags,
  method: 'delete',
  path: '/{user_id}',
  summary: 'Remove a member, or leave the organisation (your own user id)',
  description:
    'Removing someone else needs the members.manage permission, and an owner is removed by an owner only (403). The last owner can neither leave ' +
    'nor be removed (409). Their console sessions in the organisation end at once; their account stays.',
  request: { params: userParams },
  responses: { 204: { description: 'Removed' }, ...errors(400, 401, 403, 404, 409) },
});

const revokeRoute = createRoute({
  ...needs('members.manage'),
  tags,
  method: 'delete',
  path: '/{user_id}/sessions',
  summary: "End all of a member's console sessions",
  description: 'They are signed out everywhere at once and sign in again to continue.',
  request: { params: userParams },
  responses: {
    200: jsonAnswer(
      'Ended',
      z.object({ revoked: z.number().int().openapi({ description: 'Sessions that were live' }) }),
    ),
    ...errors(400, 401, 403, 404),
  },
});

/** `/control-plane/members`: the organisation's people (docs/teams.md, "Members and invitations"). */
export function memberRoutes(services: Services) {
  const { db, clock } = services;
  return createRouter()
    .openapi(listRoute, async (c) =>
      c.json({ data: (await listMembers(db, c.get('caller').tenantId)).map(memberJson) }, 200),
    )
    .openapi(changeRoute, async (c) => {
      const { tenantId, actor } = c.get('caller');
      const { role, projects } = c.req.valid('json');
      const { before, after } = await changeMember(db, {
        tenantId,
        by: authorityOf(actor),
        userId: c.req.valid('param').user_id,
        ...(role !== undefined ? { role } : {}),
        ...(projects !== undefined ? { projects } : {}),
      });
      const fields = (m: typeof after) => ({ role: m.role, projects: m.projects });
      c.set('audit', { before: fields(before), after: fields(after) });
      return c.json(memberJson(after), 200);
    })
    .openapi(removeRoute, async (c) => {
      const caller = c.get('caller');
      const userId = c.req.valid('param').user_id;
      const self = caller.actor.kind === 'person' && caller.actor.person.userId === userId;
      if (!self) requirePermission(c, caller, 'members.manage');
      const removed = await removeMember(db, clock, {
        tenantId: caller.tenantId,
        by: authorityOf(caller.actor),
        label: actorLabel(caller.actor),
        userId,
      });
      c.set('audit', { before: { email: removed.email, role: removed.role, projects: removed.projects } });
      if (self) clearSessionCookie(c, services.publicUrl);
      return c.body(null, 204);
    })
    .openapi(revokeRoute, async (c) => {
      const { tenantId } = c.get('caller');
      const { userId } = await findMember(db, tenantId, c.req.valid('param').user_id);
      const revoked = await revokeSessions(db, clock, { userId, tenantId });
      c.set('audit', { after: { revoked } });
      return c.json({ revoked }, 200);
    });
}
