import { ISSUE_STATUSES } from './incidents/detect/tables';
import { ISSUE_SORTS } from './issues/list';
import { SETTABLE_STATUSES } from './issues/status';
import { body, control, errorRefs, idParam, obj, ok, param, signedQuery, str, strOrNull, time, timeOrNull, type Schema } from './openapi-parts';

/** OpenAPI paths of issues (docs/issues.md). */
const int: Schema = { type: 'integer' };
const seen = obj({ at: time, release: strOrNull });

const Issue = obj({
  id: { type: 'string', description: 'The fingerprint: 16 hex characters' },
  status: { type: 'string', enum: [...ISSUE_STATUSES] },
  type: str,
  message: { type: 'string', description: 'One occurrence\'s message, personal and secret data masked' },
  app: str,
  env: str,
  events: int,
  sessions: { type: 'integer', description: 'Distinct sessions ever affected' },
  first_seen: seen,
  last_seen: seen,
  top_frame: strOrNull,
  status_changed_at: timeOrNull,
  status_by: strOrNull,
  in_next_release: { type: 'boolean' },
  resolved_release: strOrNull,
  incident_id: strOrNull,
});

const Frame = obj({
  function: str,
  url: str,
  line: int,
  column: int,
  in_app: { type: 'boolean' },
  debug_id: strOrNull,
  original: {
    type: ['object', 'null'],
    properties: {
      file: str,
      line: int,
      column: int,
      function: strOrNull,
      context: { type: ['object', 'null'], properties: { start_line: int, lines: { type: 'array', items: str } } },
    },
  },
});

const IssueDetail = {
  allOf: [
    Issue,
    obj({
      stack: obj({ raw: strOrNull, frames: { type: 'array', items: Frame } }),
      last_event: { type: ['object', 'null'], properties: { at: time, release: strOrNull, session_id: strOrNull } },
      counts: { type: 'array', items: obj({ start: time, count: int }), description: 'Errors per hour (hours with errors), the 14 days up to the last one' },
      releases: { type: 'array', items: obj({ release: str, events: int, first_seen: time, last_seen: time }) },
      sessions_sample: { type: 'array', items: obj({ session_id: str, last_seen: time, replay_url: strOrNull }) },
      breadcrumbs: {
        type: 'array',
        items: obj({ at: time, kind: { type: 'string', enum: ['click', 'navigation', 'console', 'request', 'log', 'error'] }, message: str, data: { type: 'object' } }),
      },
    }),
  ],
};

const query = (name: string, description: string, schema: Schema = str) => param(name, 'query', description, schema);

export const ISSUE_PATHS = {
  '/control-plane/issues': {
    get: control('Issues: errors grouped by fingerprint', ok('A page', obj({ data: { type: 'array', items: Issue }, next_cursor: strOrNull }, ['data', 'next_cursor'])), {
      description: 'Confined to the key\'s project; largest first in the chosen order, then by id. Unknown query parameters are rejected.',
      parameters: [
        query('app', 'App name or alias'),
        query('env', 'Environment'),
        query('release', 'Issues seen in this release'),
        query('status', 'Filter', { type: 'string', enum: [...ISSUE_STATUSES] }),
        query('q', 'Text in the type or message, case-insensitive'),
        query('from', 'Last seen at or after: epoch ms or ISO 8601'),
        query('to', 'Last seen before: epoch ms or ISO 8601'),
        query('user_id', 'Issues that affected a session whose latest user (`user.id`) is this one; 1 to 256 characters', { type: 'string', minLength: 1, maxLength: 256 }),
        query('sort', 'Order', { type: 'string', enum: Object.keys(ISSUE_SORTS), default: 'last_seen' }),
        query('limit', 'Page size', { type: 'integer', minimum: 1, maximum: 200, default: 50 }),
        query('cursor', '`next_cursor` of the previous page'),
      ],
    }),
  },
  '/control-plane/issues/{id}': {
    get: control('One issue: its newest error\'s stack symbolicated now, counts, releases, sessions, breadcrumbs', { ...ok('The issue', IssueDetail), ...errorRefs(404) }, idParam('Issue id')),
    patch: control('Set an issue\'s status', { ...ok('The issue', Issue), ...errorRefs(404) }, {
      ...idParam('Issue id'),
      ...body(
        obj(
          {
            status: { type: 'string', enum: [...SETTABLE_STATUSES] },
            in_next_release: { type: 'boolean', description: 'With `resolved` only: errors of the release current now do not regress it' },
          },
          ['status'],
        ),
      ),
    }),
  },
  '/issues/{id}': {
    get: {
      tags: ['issues'],
      summary: 'The issue page (an `issue.regressed` `dashboard_url`), through a signed link; GET changes nothing',
      parameters: [param('id', 'path', 'Issue id'), ...signedQuery],
      responses: { '200': { description: 'HTML' }, '403': { description: 'Altered, expired or other-kind link' }, '404': { description: 'No such issue (HTML)' } },
    },
  },
};
