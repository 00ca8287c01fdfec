import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import { ciInfo, ciFromEnv } from '../ci';
import { trimUrl, type SvcOptions } from '../config';
import { runLink } from '../links';
import { ensureRunId } from '../run-id';
import { resultPayload, type ResultPayload } from './results';
import { Uploader } from './uploader';

/** Options of `reporter: [['@svc/playwright/reporter', {...}]]`; the env variables fill the gaps. */
export interface SvcReporterOptions {
  /** The svc server. Default SVC_URL, else `use.svc.url` of the first project. */
  url?: string;
  /** A control key. Default SVC_CONTROL_KEY, else `use.svc.apiKey` of the first project. */
  apiKey?: string;
  /** Results per request, at most 500 (the server's bound). Default 500. */
  batchSize?: number;
  /** Longest the reporter holds up the end of the run to deliver what is left. Default 30 s. */
  maxWaitMs?: number;
  /** Tries after the first one of a failed request. Default 4. */
  retries?: number;
  /** Wait before the first retry, doubled each time. Default 500 ms. */
  backoffMs?: number;
  /** Where the one warning goes. Default console.warn. */
  warn?: (message: string) => void;
}

const MAX_BATCH = 500;
/** Bytes of results per request: under the server's 1 MiB control-plane body limit, with room for the envelope. */
const MAX_BATCH_BYTES = 768 * 1024;

/**
 * Takes the next request's results off the front of `queue`: at most `count`, and no more than `bytes` of JSON (at
 * least one result, which the server's own field limits keep far below it), so a batch of long stacks is never
 * refused whole for its size.
 */
export function takeBatch<T>(queue: T[], count: number, bytes = MAX_BATCH_BYTES): T[] {
  let taken = 0;
  let size = 0;
  while (taken < Math.min(count, queue.length)) {
    size += Buffer.byteLength(JSON.stringify(queue[taken])) + 1;
    if (taken > 0 && size > bytes) break;
    taken++;
  }
  return queue.splice(0, taken);
}

/** Whichever settles first: `work`, or `ms` elapsing (false). */
function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  return Promise.race([work.then(() => true), late]).finally(() => clearTimeout(timer));
}

/**
 * Sends the run to svc: the run when it begins, each result as it ends (batched while a request is under way), the
 * totals when it ends. It never throws and never changes the run's outcome; when svc cannot be reached it prints one
 * warning. The run id goes into `process.env.SVC_RUN_ID` at construction, so the workers (started later) share it.
 */
export default class SvcReporter implements Reporter {
  private readonly runId: string;
  private readonly queue: ResultPayload[] = [];
  private uploader: Uploader | undefined;
  private config: FullConfig | undefined;
  private started: Promise<unknown> = Promise.resolve();
  private pumping: Promise<void> | undefined;
  private readonly startedAt = new Date();

  constructor(private readonly options: SvcReporterOptions = {}) {
    this.runId = ensureRunId();
  }

  printsToStdio(): boolean {
    return false;
  }

  onBegin(config: FullConfig, _suite: Suite): void {
    this.config = config;
    const fromConfig = (config.projects[0]?.use as { svc?: SvcOptions } | undefined)?.svc ?? {};
    const url = trimUrl(this.options.url ?? process.env.SVC_URL ?? fromConfig.url);
    const apiKey = this.options.apiKey ?? process.env.SVC_CONTROL_KEY ?? fromConfig.apiKey;
    const warn = this.options.warn;
    if (!url || !apiKey) {
      (warn ?? ((m: string) => console.warn(m)))(
        'svc: the reporter needs SVC_URL and SVC_CONTROL_KEY (or its url and apiKey options); this run is not sent to svc',
      );
      return;
    }
    this.uploader = new Uploader({
      url,
      apiKey,
      retries: this.options.retries,
      backoffMs: this.options.backoffMs,
      warn,
    });
    this.started = this.uploader.send('PUT', this.path(), this.runBody(config));
  }

  private path(suffix = ''): string {
    return `/test-runs/${encodeURIComponent(this.runId)}${suffix}`;
  }

  private runBody(config: FullConfig) {
    const { commit, branch } = ciInfo();
    const { provider, jobUrl, buildId } = ciFromEnv(process.env);
    const ci = {
      ...(provider && { provider }),
      ...(jobUrl && { job_url: jobUrl }),
      ...(buildId && { build_id: buildId }),
    };
    return {
      started_at: this.startedAt.toISOString(),
      ...(commit && { commit }),
      ...(branch && { branch }),
      ...(Object.keys(ci).length > 0 && { ci }),
      ...(config.shard && { shard: config.shard }),
    };
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    if (!this.uploader || !this.config) return;
    try {
      this.queue.push(resultPayload(test, result, this.config));
    } catch (error) {
      this.uploader.warnOnce(`a result could not be read: ${(error as Error).message}`);
      return;
    }
    void this.drain();
  }

  /** The pump under way, or a new one. */
  private drain(): Promise<void> {
    return (this.pumping ??= this.pump().finally(() => (this.pumping = undefined)));
  }

  /** Sends what is queued, a batch at a time, until the queue is empty; results ending meanwhile join the next batch. */
  private async pump(): Promise<void> {
    await this.started;
    const size = Math.min(Math.max(1, this.options.batchSize ?? MAX_BATCH), MAX_BATCH);
    while (this.queue.length > 0 && this.uploader) {
      const batch = takeBatch(this.queue, size);
      await this.uploader.send('POST', this.path('/results'), { results: batch });
    }
  }

  /** Delivers what is left and closes the run, within maxWaitMs; the run's own result is left as it is. */
  async onEnd(result: FullResult): Promise<void> {
    const uploader = this.uploader;
    if (!uploader) return;
    const deliver = async () => {
      await this.started;
      while (this.pumping || this.queue.length > 0) await this.drain();
      const finish = {
        status: result.status,
        duration_ms: Math.max(0, Math.round(result.duration)),
        ...(this.config?.shard && { shard: this.config.shard }),
      };
      return uploader.send('POST', this.path('/finish'), finish);
    };
    const maxWaitMs = this.options.maxWaitMs ?? 30_000;
    const done = await within(deliver(), maxWaitMs);
    if (!done) {
      uploader.stop();
      uploader.warnOnce(
        `gave up delivering this run's results after ${maxWaitMs} ms; the tests' own results are not affected`,
      );
    } else if (uploader.delivered) {
      console.log(`svc: ${runLink(uploader.url, this.runId)}`);
    }
  }
}
