import { ANALYSIS_STATES } from './ai/analyses';
import { control, errorRefs, idParam, json, num, obj, ok, str, strOrNull, time, timeOrNull, type Schema } from './openapi-parts';

/** OpenAPI paths of issue analyses (docs/ai-fixes.md). */
const int: Schema = { type: 'integer' };
const location = obj({ file: str, line: int });

const Result = {
  type: ['object', 'null'],
  description: 'Set once done',
  properties: {
    root_cause: str,
    confidence: { type: 'number', minimum: 0, maximum: 1, description: '0 in heuristic mode' },
    locations: { type: 'array', items: location },
    diff: { ...strOrNull, description: 'Unified diff against the original sources (`a/<path>`, `b/<path>`, paths as the source map names them)' },
    diff_applies: { type: 'boolean', description: 'False: the diff is a suggestion to read, it does not apply cleanly to the sources the server holds' },
    explanation: str,
  },
};

const Sent = {
  type: ['object', 'null'],
  description: 'Exactly what left the server for the model (docs/ai-fixes.md, "What is sent"); null when nothing did',
  properties: {
    issue: obj({ id: str, type: str, message: str, app: str, events: int, sessions: int, top_frame: strOrNull }),
    release: strOrNull,
    env: str,
    browser: strOrNull,
    stack: { type: 'array', items: obj({ function: str, file: str, line: int, column: int, in_app: { type: 'boolean' }, context: { type: ['object', 'null'] } }) },
    sources: { type: 'array', items: obj({ path: str, content: str }) },
    breadcrumbs: { type: 'array', items: obj({ at: time, kind: str, message: str }) },
    failing_requests: { type: 'array', items: obj({ at: time, method: strOrNull, path: str, status: { type: ['integer', 'null'] } }) },
  },
};

const Analysis = obj({
  id: str,
  issue_id: str,
  state: { type: 'string', enum: [...ANALYSIS_STATES] },
  mode: { type: 'string', enum: ['model', 'heuristic'], description: 'heuristic: no model configured; the detector\'s root-cause sentence' },
  model: strOrNull,
  result: Result,
  error: {
    type: ['object', 'null'],
    description: 'Set once failed: model_invalid_output, model_rate_limited, model_timeout, model_unavailable, model_refused, model_unreachable, interrupted, internal',
    properties: { code: str, message: str, retry_after_s: { type: ['integer', 'null'], description: 'The provider\'s Retry-After after a 429' } },
  },
  sent: Sent,
  usage: { type: ['object', 'null'], properties: { prompt_tokens: int, completion_tokens: int, total_tokens: int, duration_ms: num } },
  requested_at: time,
  finished_at: timeOrNull,
});

/** The latest analysis of an incident's issue, in the incident's detail (`sent` and `usage` left to the analysis's endpoint). */
export const IncidentAnalysis = {
  type: ['object', 'null'],
  description: 'The latest analysis of the issue the incident grew from; null for API incidents and issues never analysed',
  properties: Object.fromEntries(Object.entries((Analysis as { properties: Record<string, Schema> }).properties).filter(([k]) => k !== 'sent' && k !== 'usage')),
};

export const AI_PATHS = {
  '/control-plane/issues/{id}/analysis': {
    post: control(
      'Start a root-cause analysis of an issue (asynchronous); an analysis already under way is returned, not repeated',
      { '202': { description: 'The analysis, queued or under way: follow it with GET', content: json(Analysis) }, ...errorRefs(404) },
      idParam('Issue id'),
    ),
    get: control('The issue\'s latest analysis: state, result, what was sent, token usage', { ...ok('The analysis', Analysis), ...errorRefs(404) }, idParam('Issue id')),
  },
};
