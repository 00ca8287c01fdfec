import { z } from '@hono/zod-openapi';
import { TimeOrNull } from '../http/schemas';
import { iso } from '../shared/time';
import type { Assignee } from './assignee';
import type { AssignmentColumns } from './tables';

/** The assignment fields of an issue and an incident as the API shows them (docs/teams.md, "Ownership"). */
export const assignmentFields = {
  assignee: z
    .object({ id: z.string(), email: z.string(), name: z.string() })
    .nullable()
    .openapi({ description: 'The member it is assigned to; null when unassigned' }),
  assigned_at: TimeOrNull.openapi({ description: 'When it was last assigned or unassigned; null when never' }),
  assigned_by: z.string().nullable().openapi({
    description:
      'Who last assigned or unassigned it: the e-mail of a person, `key:<name>` for a key; `detector` when an incident took its issue’s assignee',
  }),
};

export const assignmentJson = (
  assignee: Assignee | null,
  row: Pick<AssignmentColumns, 'assigned_ms' | 'assigned_by'>,
) => ({
  assignee,
  assigned_at: row.assigned_ms === null ? null : iso(row.assigned_ms),
  assigned_by: row.assigned_by,
});

/** `PUT …/{id}/assignee`: a user id, `me` (a person's session only), or null to unassign. */
export const AssignmentBody = z.strictObject({
  assignee: z
    .string()
    .min(1)
    .max(64)
    .nullable()
    .openapi({ description: 'A user id of the organisation, `me`, or null to unassign' }),
});

/** The listings' `assignee` filter. */
export const assigneeQuery = z.string().min(1).max(64).optional().openapi({
  description: 'Only those assigned to this user id; `me`: to you (a person, not a key); `none`: unassigned',
});
