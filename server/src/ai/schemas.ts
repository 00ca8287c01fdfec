import { z } from '@hono/zod-openapi';
import { Time, TimeOrNull } from '../http/schemas';
import { ANALYSIS_STATES } from './store';

/** What `/control-plane/issues/{id}/analysis` answers (docs/ai-fixes.md). */
const Location = z.object({ file: z.string(), line: z.number().int() });

const Result = z
  .object({
    root_cause: z.string(),
    confidence: z.number().min(0).max(1).openapi({ description: '0 in heuristic mode' }),
    locations: z.array(Location),
    diff: z.string().nullable().openapi({
      description:
        'Unified diff against the original sources (`a/<path>`, `b/<path>`, paths as the source map names them)',
    }),
    diff_applies: z.boolean().openapi({
      description: 'False: the diff is a suggestion to read, it does not apply cleanly to the sources the server holds',
    }),
    explanation: z.string(),
  })
  .nullable()
  .openapi({ description: 'Set once done' });

const Sent = z
  .object({
    issue: z.object({
      id: z.string(),
      type: z.string(),
      message: z.string(),
      app: z.string(),
      events: z.number().int(),
      sessions: z.number().int(),
      top_frame: z.string().nullable(),
    }),
    release: z.string().nullable(),
    env: z.string(),
    browser: z.string().nullable(),
    stack: z.array(
      z.object({
        function: z.string(),
        file: z.string(),
        line: z.number().int(),
        column: z.number().int(),
        in_app: z.boolean(),
        context: z.record(z.string(), z.unknown()).nullable(),
      }),
    ),
    sources: z.array(z.object({ path: z.string(), content: z.string() })),
    breadcrumbs: z.array(z.object({ at: Time, kind: z.string(), message: z.string() })),
    failing_requests: z.array(
      z.object({ at: Time, method: z.string().nullable(), path: z.string(), status: z.number().int().nullable() }),
    ),
  })
  .nullable()
  .openapi({
    description: 'Exactly what left the server for the model (docs/ai-fixes.md, "What is sent"); null when nothing did',
  });

const analysisFields = {
  id: z.string(),
  issue_id: z.string(),
  state: z.enum(ANALYSIS_STATES),
  mode: z
    .enum(['model', 'heuristic'])
    .openapi({ description: "heuristic: no model configured; the detector's root-cause sentence" }),
  model: z.string().nullable(),
  result: Result,
  error: z
    .object({
      code: z.string(),
      message: z.string(),
      retry_after_s: z.number().int().nullable().openapi({ description: "The provider's Retry-After after a 429" }),
    })
    .nullable()
    .openapi({
      description:
        'Set once failed: model_invalid_output, model_rate_limited, model_timeout, model_unavailable, model_refused, model_unreachable, interrupted, internal',
    }),
  requested_at: Time,
  finished_at: TimeOrNull,
};

export const Analysis = z
  .object({
    ...analysisFields,
    sent: Sent,
    usage: z
      .object({
        prompt_tokens: z.number().int(),
        completion_tokens: z.number().int(),
        total_tokens: z.number().int(),
        duration_ms: z.number(),
      })
      .nullable(),
  })
  .openapi('Analysis');

/** The latest analysis of an incident's issue, in the incident's detail (`sent` and `usage` left to the analysis's endpoint). */
export const IncidentAnalysis = z.object(analysisFields).nullable().openapi({
  description:
    'The latest analysis of the issue the incident grew from; null for API incidents and issues never analysed',
});
