import { HttpFailure, type HttpAnswer } from '../http/guarded-http';
import type { SendOutcome } from './types';

/** Stored response bodies are capped: enough to see what a receiver said, not a copy of its page. */
export const MAX_STORED_BODY = 2048;

const capped = (body: string) => (body.length > MAX_STORED_BODY ? `${body.slice(0, MAX_STORED_BODY)}…` : body);

/** `Retry-After` in seconds or as an HTTP date, as milliseconds from now. */
export function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * The common mapping of an HTTP answer (brief: 2xx delivered, 408/429/5xx retry with Retry-After, other 4xx failed).
 * `retryAll` makes every non-2xx retryable (SPEC 3.1 for webhooks).
 */
export function outcomeOfAnswer(answer: HttpAnswer, now: number, options: { retryAll?: boolean } = {}): SendOutcome {
  const body = capped(answer.body);
  if (answer.status >= 200 && answer.status < 300) return { state: 'delivered', status: answer.status, body };
  const errorClass = answer.status >= 500 ? 'http_5xx' : `http_${answer.status}`;
  const message = `answered HTTP ${answer.status}`;
  if (options.retryAll || answer.status === 408 || answer.status === 429 || answer.status >= 500) {
    return {
      state: 'retry',
      status: answer.status,
      body,
      errorClass,
      message,
      retryAfterMs: retryAfterMs(answer.headers['retry-after'], now),
    };
  }
  return { state: 'failed', status: answer.status, body, errorClass, message };
}

/** No HTTP answer: a refused target or a bad URL is final, the rest is worth another attempt. */
export function outcomeOfFailure(error: unknown): SendOutcome {
  if (!(error instanceof HttpFailure))
    return { state: 'retry', errorClass: 'internal', message: error instanceof Error ? error.message : String(error) };
  if (error.errorClass === 'ssrf_blocked' || error.errorClass === 'invalid_url')
    return { state: 'failed', errorClass: error.errorClass, message: error.message };
  return { state: 'retry', errorClass: error.errorClass, message: error.message };
}
