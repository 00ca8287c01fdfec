import { createRoute, type z } from '@hono/zod-openapi';
import { errors, jsonAnswer, jsonBody, needs, readControlJson } from '../http/openapi';
import { idParams } from '../http/schemas';
import { AssignmentBody } from './schemas';

/** `PUT /{id}/assignee` of issues or incidents (docs/teams.md, "Ownership"), answering the object as `answer` shows it. */
export const assigneeRoute = <S extends z.ZodType>(kind: 'issue' | 'incident', answer: S) =>
  createRoute({
    ...needs('issues.triage'),
    tags: [`${kind}s`],
    method: 'put',
    path: '/{id}/assignee',
    summary: `Assign an ${kind} to a member, or unassign it`,
    description:
      'The member must belong to the organisation and may act on the project, else 400 naming `assignee`; `me` is the ' +
      'person signed in (a key is refused). The assignee is e-mailed when the server has SMTP, unless they assigned ' +
      'themselves; the same assignee again changes nothing.',
    middleware: [readControlJson],
    request: {
      params: idParams(kind === 'issue' ? 'Issue id' : 'Incident id'),
      body: jsonBody(AssignmentBody, { assignee: 'me' }),
    },
    responses: { 200: jsonAnswer(`The ${kind}`, answer), ...errors(400, 401, 403, 404, 413, 415) },
  });
