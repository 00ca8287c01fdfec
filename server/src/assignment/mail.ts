import { afterCommit } from '../db/request-transaction';
import type { Actor, Services } from '../http/env';
import { truncate } from '../shared/truncate';
import type { Assignee } from './assignee';

/** The longest title a subject line carries: mail clients cut long subjects anyway. */
const SUBJECT_TITLE = 120;

/** What an assignment mail tells its reader. */
export interface AssignmentNotice {
  to: Assignee;
  by: Actor;
  kind: 'issue' | 'incident';
  title: string;
  project: string;
  /** The console page: `/issue/<id>` or `/incident/<id>`. */
  path: string;
}

const who = (actor: Actor) =>
  actor.kind === 'person' ? `${actor.person.name} (${actor.person.email})` : `The key "${actor.key.name}"`;

/** The mail's subject and text: the title, who assigned it, the project and the console link. */
export function assignmentMail(notice: AssignmentNotice, publicUrl: string): { subject: string; text: string } {
  const text = [
    `${who(notice.by)} assigned you the ${notice.kind} "${notice.title}" in the project ${notice.project} on svc.`,
    '',
    `Open it: ${publicUrl}${notice.path}`,
    '',
    'Pick that project in the console if it shows another one.',
  ].join('\n');
  return { subject: `Assigned to you: ${truncate(notice.title, SUBJECT_TITLE)}`, text };
}

/**
 * Mails the assignee through the server's SMTP setting (auth/mailer.ts) once the assignment has committed, without
 * holding up the answer: without SMTP nothing is sent, and a failed send is logged while the assignment stands
 * (docs/teams.md, "Ownership").
 */
export function mailAssignee(services: Pick<Services, 'mailer' | 'log' | 'publicUrl'>, notice: AssignmentNotice): void {
  const { mailer } = services;
  if (!mailer) return;
  const { subject, text } = assignmentMail(notice, services.publicUrl);
  afterCommit(
    () =>
      void mailer.sendMail(notice.to.email, subject, text).catch((err: unknown) => {
        const why = err instanceof Error ? err.message : String(err);
        services.log(`assignment of ${notice.kind} ${notice.path} to ${notice.to.email} not mailed: ${why}`);
      }),
  );
}
