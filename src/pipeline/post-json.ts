import { failedOutsideFlush } from './backoff';
import { post } from './delivery';
import { refused } from './outcomes';
import type { PipelineState } from './pipeline-state';
import { handOver } from './unload';
import { utf8Length } from './utf8';

/** Attempts of one `postJson` body (it is not on the queue, so its retries are capped). */
const POST_JSON_ATTEMPTS = 4;

/**
 * One JSON body outside the queue (Pipeline.postJson): handed to the browser when unloading, otherwise posted with up
 * to POST_JSON_ATTEMPTS attempts that respect the pipeline's backoff and add to it. Resolves true once delivered.
 */
export async function postJson(state: PipelineState, path: string, body: string, unloading = false): Promise<boolean> {
  if (!state.transport_ || !state.route_) return false;
  const url = state.options_.ingestUrl(path);
  const bytes = utf8Length(body);
  if (unloading) {
    const sent = handOver(state.route_, url, body, bytes);
    return sent.via_ === 'keepalive' ? (await sent.result_).verdict_ === 'delivered' : sent.via_ === 'beacon';
  }
  for (let attempt = 1; attempt <= POST_JSON_ATTEMPTS; attempt++) {
    const wait = state.pausedUntil_ - state.clock_.now();
    if (wait > 0 && !state.stopped_) await new Promise<void>((resolve) => state.clock_.setTimeout(resolve, wait));
    const result = await post(state, url, body, bytes);
    if (result.verdict_ === 'delivered') return true;
    if (result.verdict_ === 'refused') {
      refused(state, url, undefined, 0, result);
      return false;
    }
    failedOutsideFlush(state, url, result);
    if (state.stopped_) break;
  }
  return false;
}
