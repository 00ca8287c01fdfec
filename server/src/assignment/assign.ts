import type { Context } from 'hono';
import { actorLabel, type AppEnv, type Services } from '../http/env';
import { projectNamed } from '../projects/store';
import { resolveAssignee, type Assignee } from './assignee';
import { mailAssignee } from './mail';
import type { AssignmentChange } from './tables';

/** An issue or an incident of the caller's project as it is now, and how to change its assignee. */
export interface Assignable<Row> {
  kind: 'issue' | 'incident';
  title: string;
  /** Its console page: `/issue/<id>`. */
  path: string;
  assignee: Assignee | null;
  row: Row;
  /** Writes the change and reads the row back. */
  save(change: AssignmentChange): Promise<Row>;
}

export type AssignmentServices = Pick<Services, 'db' | 'clock' | 'mailer' | 'log' | 'publicUrl'>;

/**
 * `PUT …/{id}/assignee` (docs/teams.md, "Ownership"): assigns `target` to the member `requested` names (null
 * unassigns), tells the audit log the assignee before and after, and mails the new assignee unless they assigned
 * themselves. The same assignee again changes nothing and mails no one. The row as it is afterwards.
 */
export async function assign<Row>(
  c: Context<AppEnv>,
  services: AssignmentServices,
  target: Assignable<Row>,
  requested: string | null,
): Promise<Row> {
  const caller = c.get('caller');
  const assignee = await resolveAssignee(services.db, caller, requested);
  c.set('audit', {
    before: { assignee: target.assignee?.email ?? null },
    after: { assignee: assignee?.email ?? null },
  });
  if ((assignee?.id ?? null) === (target.assignee?.id ?? null)) return target.row;
  const { actor } = caller;
  const row = await target.save({
    assigneeId: assignee?.id ?? null,
    by: actorLabel(actor),
    atMs: services.clock.now(),
  });
  const self = actor.kind === 'person' && actor.person.userId === assignee?.id;
  if (assignee && !self) {
    const project = (await projectNamed(services.db, caller.projectId)).name;
    mailAssignee(services, {
      to: assignee,
      by: actor,
      kind: target.kind,
      title: target.title,
      project,
      path: target.path,
    });
  }
  return row;
}
