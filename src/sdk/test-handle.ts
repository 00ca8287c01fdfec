import type { SdkCore } from '../core/core';
import type { Pipeline } from '../pipeline/types';
import type { ReplayTimeline } from '../replay/timeline';

/** Requests answered during a wait: with a 2xx, and otherwise. */
interface Answered {
  sent: number;
  failed: number;
}

/** What @svc/playwright's fixture calls at the end of a test (docs/sdk.md "Under @svc/playwright"). */
interface TestHandle {
  readonly sessionId: string;
  flush(): Promise<Answered>;
  drain(): { apiKey: string; base: string; requests: Array<[path: string, body: string]>; settled: Promise<Answered> };
  send(path: string, body: string): Promise<boolean>;
}

const slot = globalThis as { __SVC_TEST_SDK__?: TestHandle };

/**
 * `globalThis.__SVC_TEST_SDK__` for a page under test, until shutdown; none of it rejects or throws.
 * - `flush()` sends everything queued (records, replay chunks, recipe steps) and resolves once each of those requests
 *   has its answer, a 2xx meaning the server committed the rows, with the requests answered meanwhile.
 * - `drain()` hands the fixture everything queued as requests to post itself (from Node.js, with none of the page's
 *   costs: CORS preflights, a new connection per browser context, compression in the page), taken out of the SDK so
 *   nothing is sent twice; `settled` resolves once the requests already under way have their answers.
 * - `send()` posts one of them the page's own way (retries, warnings), for those the fixture could not deliver.
 */
export function exposeToTest(core: SdkCore, pipeline: Pipeline, replay: ReplayTimeline): void {
  const answered = async (work: Promise<unknown>): Promise<Answered> => {
    const [sent, failed] = pipeline.answers;
    await work;
    return { sent: pipeline.answers[0] - sent, failed: pipeline.answers[1] - failed };
  };
  // After a drain, this finds nothing left to send: it waits for what is under way.
  const flush = () => answered(Promise.all([pipeline.flush(true), replay.flush()]));
  slot.__SVC_TEST_SDK__ = {
    get sessionId() {
      return core.session.id();
    },
    flush,
    drain: () => ({
      apiKey: core.config.apiKey!,
      // Where the requests would have gone: each path is appended to it.
      base: core.ingestUrl(''),
      requests: [...pipeline.drain(), ...replay.drain()],
      settled: flush(),
    }),
    send: (path, body) => pipeline.postJson(path, body),
  };
  core.teardown.add(() => delete slot.__SVC_TEST_SDK__);
}
