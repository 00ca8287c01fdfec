import { body, created, errorRefs, obj, ok, param, str, time, type Schema } from '../openapi-parts';

/** `/control-plane/projects` (projects/routes.ts), for an admin key: described in openapi.ts's document. */
const admin = (summary: string, description: string, responses: Record<string, unknown>, extra: Schema = {}) => ({
  tags: ['projects'],
  summary,
  description,
  security: [{ adminKey: [] }],
  ...extra,
  responses: { ...responses, ...errorRefs(400, 401, 403) },
});

const project = obj({ id: str, name: str, created_at: time }, ['id', 'name', 'created_at']);
const name = { type: 'string', minLength: 1, maxLength: 128, description: 'Printable, no leading or trailing spaces' };
const newKey = obj(
  {
    id: str,
    project_id: str,
    scope: { enum: ['ingest', 'control'] },
    name: str,
    key: { type: 'string', description: 'The key itself, shown this once: only its hash is stored' },
    created_at: time,
    expires_at: { type: ['string', 'null'], format: 'date-time' },
  },
  ['id', 'project_id', 'scope', 'name', 'key', 'created_at', 'expires_at'],
);

export const PROJECT_PATHS = {
  '/control-plane/projects': {
    get: admin('Projects of the admin key\'s tenant', 'Oldest first.', ok('Projects', obj({ data: { type: 'array', items: project } }, ['data']))),
    post: admin(
      'Create a project with its default app and an ingest and a control key',
      'As on first start: the app `web-app` and one key of each project scope, shown once. Names are unique in the tenant (409).',
      { ...created({ allOf: [project, obj({ app: str, ingest_key: newKey, control_key: newKey }, ['app', 'ingest_key', 'control_key'])] }), ...errorRefs(409, 415) },
      body(obj({ name }, ['name'])),
    ),
  },
  '/control-plane/projects/{id}/keys': {
    post: admin(
      'Create a key for a project of the tenant',
      'Admin keys are not made here but with the CLI (`svc-server keys create --scope admin`), on the server\'s host.',
      { ...created(newKey), ...errorRefs(404, 415) },
      { parameters: [param('id', 'path', 'Project id')], ...body(obj({ scope: { enum: ['ingest', 'control'] }, name }, ['scope'])) },
    ),
  },
};
