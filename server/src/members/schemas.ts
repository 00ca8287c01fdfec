import { z } from '@hono/zod-openapi';
import { ROLES } from '../auth/roles';
import { Time, TimeOrNull } from '../http/schemas';
import { iso } from '../shared/time';
import type { Invitation } from './invitations';
import type { Member } from './store';

export const Role = z.enum(ROLES, { error: `role must be one of ${ROLES.join(', ')}` });

export const ProjectLimit = z
  .array(z.string().min(1))
  .max(1000)
  .nullable()
  .openapi({ description: 'Project ids of the organisation the member is limited to; null for every project' });

export const MemberSchema = z
  .object({
    user_id: z.string(),
    email: z.string(),
    name: z.string(),
    role: Role,
    projects: z.array(z.string()).nullable(),
    created_at: Time,
    last_seen_at: TimeOrNull.openapi({ description: 'Their last request from the console; null when never signed in' }),
  })
  .openapi('Member');

export const memberJson = (m: Member) => ({
  user_id: m.userId,
  email: m.email,
  name: m.name,
  role: m.role,
  projects: m.projects,
  created_at: iso(m.createdMs),
  last_seen_at: m.lastSeenMs === null ? null : iso(m.lastSeenMs),
});

export const InvitationSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    role: Role,
    projects: z.array(z.string()).nullable(),
    created_at: Time,
    expires_at: Time,
    invited_by: z.object({ id: z.string(), email: z.string() }).nullable(),
  })
  .openapi('Invitation');

export const invitationJson = (i: Invitation) => ({
  id: i.id,
  email: i.email,
  role: i.role,
  projects: i.projects,
  created_at: iso(i.createdMs),
  expires_at: iso(i.expiresMs),
  invited_by: i.invitedBy,
});
