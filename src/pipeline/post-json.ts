import type { Backoff } from './backoff';
import type { PipelineClock } from './clock';
import type { Delivery } from './delivery';
import type { Outcomes } from './outcomes';
import { handOver, type UnloadRoute } from './unload';
import { utf8Length } from './utf8';

/** Attempts of one `postJson` body (it is not on the queue, so its retries are capped). */
const POST_JSON_ATTEMPTS = 4;

/**
 * Pipeline.postJson without its error guard: a body that is not OTLP (replay chunks, recipes), sent with the queue's
 * transport rules and backoff, or handed over once to the browser while `unloading`. `stopped` is true once the
 * pipeline is shut down: no more waiting, one attempt left.
 */
export function createPostJson(
  route: UnloadRoute | undefined,
  ingestUrl: (path: string) => string,
  clock: PipelineClock,
  [, pauseLeft, , fail]: Backoff,
  post: Delivery[0],
  refused: Outcomes[5],
  stopped: () => boolean,
): (path: string, body: string, unloading?: boolean) => Promise<boolean> {
  const sleep = (ms: number) => new Promise<void>((resolve) => clock.setTimeout(resolve, ms));
  return async (path, body, unloading = false) => {
    if (!route) return false;
    const url = ingestUrl(path);
    const bytes = utf8Length(body);
    if (unloading) {
      const sent = handOver(route, url, body, bytes);
      return sent.via === 'keepalive' ? (await sent.result).verdict === 'delivered' : sent.via === 'beacon';
    }
    for (let attempt = 1; attempt <= POST_JSON_ATTEMPTS; attempt++) {
      const wait = pauseLeft();
      if (wait > 0 && !stopped()) await sleep(wait);
      const result = await post(url, body, bytes);
      if (result.verdict === 'delivered') return true;
      if (result.verdict === 'refused') {
        refused(url, undefined, 0, result);
        return false;
      }
      fail(url, result);
      if (stopped()) break;
    }
    return false;
  };
}
