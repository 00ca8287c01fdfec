import { z } from 'zod';
import type { AnalysisError, ModelUsage } from './store';
import type { SentEvidence } from './evidence';
import { DEFAULT_AI_TIMEOUT_MS, type AiSettings } from './settings';

/** What the model must answer, as JSON; anything else fails the analysis with `model_invalid_output`. */
export const ModelAnswer = z.strictObject({
  root_cause: z.string().min(1).max(4000),
  confidence: z.number().min(0).max(1),
  locations: z.array(z.strictObject({ file: z.string().min(1), line: z.number().int().positive() })).max(50),
  diff: z.string().max(200_000).nullable(),
  explanation: z.string().max(20_000),
});
export type ModelAnswer = z.infer<typeof ModelAnswer>;

export const SYSTEM_PROMPT = [
  'You are a senior front-end engineer finding the root cause of a browser error from the evidence given as JSON:',
  'the error, its stack (original files, lines and source context), the whole original sources of the app files on the',
  'stack, the breadcrumbs before the error, failing requests, release, environment and browser.',
  'Answer with one JSON object and nothing else: {"root_cause": string (one or two sentences), "confidence": number',
  'from 0 to 1, "locations": [{"file": string, "line": number}], "diff": string or null, "explanation": string}.',
  '"diff" is a unified diff that fixes the bug, against the sources given, with paths "a/<path>" and "b/<path>" where',
  '<path> is a source path as given; null when no fix can be made from these sources.',
].join(' ');

export type ModelOutcome =
  | { ok: true; answer: ModelAnswer; usage: ModelUsage }
  | { ok: false; error: AnalysisError; usage: ModelUsage | null };

const fail = (code: string, message: string, retryAfterS: number | null = null): AnalysisError => ({
  code,
  message,
  retry_after_s: retryAfterS,
});

/** Asks the model once (no retries: a 429 is reported with its Retry-After for the caller to decide), logging the call. */
export async function askModel(
  settings: AiSettings,
  sent: SentEvidence,
  log: (line: string) => void,
): Promise<ModelOutcome> {
  // Loaded on first use: the client costs start-up time every server pays, and most never ask a model.
  const openai = await import('openai');
  const client = new openai.default({
    baseURL: settings.baseUrl,
    apiKey: settings.apiKey ?? 'none',
    timeout: settings.timeoutMs ?? DEFAULT_AI_TIMEOUT_MS,
    maxRetries: 0,
  });
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const completion = await client.chat.completions.create({
      model: settings.model,
      temperature: 0,
      response_format: { type: 'json_object' },
      messages: [
        { role: 'system', content: SYSTEM_PROMPT },
        { role: 'user', content: JSON.stringify(sent) },
      ],
    });
    const usage: ModelUsage = {
      prompt_tokens: completion.usage?.prompt_tokens ?? 0,
      completion_tokens: completion.usage?.completion_tokens ?? 0,
      total_tokens: completion.usage?.total_tokens ?? 0,
      duration_ms: elapsed(),
    };
    log(
      `ai: ${settings.model} answered in ${usage.duration_ms} ms, ${usage.prompt_tokens} prompt + ${usage.completion_tokens} completion tokens`,
    );
    const answer = parseAnswer(completion.choices[0]?.message.content ?? null);
    return 'code' in answer ? { ok: false, error: answer, usage } : { ok: true, answer, usage };
  } catch (err) {
    const error = callError(openai, err);
    log(`ai: ${settings.model} failed after ${elapsed()} ms (${error.code}): ${error.message}`);
    return { ok: false, error, usage: null };
  }
}

function parseAnswer(content: string | null): ModelAnswer | AnalysisError {
  if (content === null) return fail('model_invalid_output', 'the model answered without content');
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch {
    return fail('model_invalid_output', 'the model did not answer with JSON');
  }
  const answer = ModelAnswer.safeParse(json);
  if (answer.success) return answer.data;
  const issue = answer.error.issues[0]!;
  return fail(
    'model_invalid_output',
    `the model's answer is not valid: ${issue.path.join('.') || 'answer'}: ${issue.message}`,
  );
}

function callError(
  { APIConnectionError, APIConnectionTimeoutError, APIError }: typeof import('openai'),
  err: unknown,
): AnalysisError {
  if (err instanceof APIConnectionTimeoutError) return fail('model_timeout', 'the model did not answer in time');
  if (err instanceof APIConnectionError)
    return fail('model_unreachable', `the model endpoint could not be reached: ${err.message}`);
  if (err instanceof APIError) {
    if (err.status === 429) {
      const after = Number(err.headers?.get('retry-after'));
      return fail(
        'model_rate_limited',
        'the model endpoint is rate limited; ask again after Retry-After',
        Number.isFinite(after) && after >= 0 ? Math.ceil(after) : null,
      );
    }
    if ((err.status ?? 0) >= 500) return fail('model_unavailable', `the model endpoint answered ${err.status}`);
    return fail(
      'model_refused',
      `the model endpoint refused the request (${err.status ?? 'no status'}): ${err.message}`,
    );
  }
  throw err;
}
