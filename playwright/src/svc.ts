import { apiClient } from './api';
import type { ResolvedOptions } from './config';
import { sessionLink } from './links';
import type { FlushOutcome } from './deliver';
import type { ContextPages } from './pages';
import { TestReads, type TestKey } from './reads';
import type { LogRecord, MetricPointRecord, SessionRecord, SpanRecord } from './records';
import { describeErrors, errorLink } from './report';

/**
 * The `svc` fixture: what svc received from this test attempt's pages. Every read flushes the open pages first, so
 * it sees everything the test did up to the call. Reads need `url` and an API key (read or control).
 */
export class Svc {
  constructor(
    private readonly options: ResolvedOptions,
    private readonly key: TestKey,
    private readonly pages: ContextPages,
  ) {}

  /** The run this test belongs to (SVC_RUN_ID, the CI build's id, or the reporter's UUID). */
  get runId(): string {
    return this.key.runId;
  }

  /** The SDK sessions the fixture saw in this test's pages so far. */
  sessionIds(): string[] {
    return this.pages.sessionIds();
  }

  /** Delivers what every open page's SDK queued and waits for the server's answers (bounded by flushTimeoutMs). */
  flush(): Promise<FlushOutcome[]> {
    return this.pages.flush();
  }

  private reads(): TestReads {
    const { url, apiKey } = this.options;
    if (!url || !apiKey) {
      throw new Error(
        'svc: reading what a test sent needs the server URL and a read or control key: set use.svc.url and use.svc.apiKey, or SVC_URL and SVC_READ_KEY (or SVC_CONTROL_KEY)',
      );
    }
    return new TestReads(apiClient(url, apiKey), this.key, () => this.pages.sessionIds());
  }

  private async afterFlush<T>(read: (r: TestReads) => Promise<T>): Promise<T> {
    const reads = this.reads();
    await this.flush();
    return read(reads);
  }

  /** This attempt's sessions (earlier retries left out). */
  sessions = (): Promise<SessionRecord[]> => this.afterFlush((r) => r.sessions());
  /** Every log record of this attempt's sessions, oldest first. */
  logs = (): Promise<LogRecord[]> => this.afterFlush((r) => r.logs());
  /** The error logs (severity ERROR or above, or with `exception.type`), oldest first. */
  errors = (): Promise<LogRecord[]> => this.afterFlush((r) => r.errors());
  /** Every span, oldest first. */
  spans = (): Promise<SpanRecord[]> => this.afterFlush((r) => r.spans());
  /** The Web Vitals points (`web_vital_*`), oldest first. */
  vitals = (): Promise<MetricPointRecord[]> => this.afterFlush((r) => r.vitals());

  /** A text block per error: message, symbolicated frames and the replay link at that moment (toHaveNoErrors' message). */
  async describeErrors(errors: readonly LogRecord[]): Promise<string> {
    const { url, apiKey } = this.options;
    if (!url || !apiKey) return errors.map((e, i) => `${i + 1}. ${JSON.stringify(e.body)}`).join('\n');
    const starts = await this.reads().replayStarts(errors.flatMap((e) => (e.session_id ? [e.session_id] : [])));
    return describeErrors(apiClient(url, apiKey), url, errors, starts);
  }

  /**
   * Console links for a failed test: the replay at its first error when the key can read it, else at `endedAt` (the
   * failure) in each session; without a key, each session from its start.
   */
  async failureLinks(endedAt: number): Promise<string[]> {
    const { url, apiKey } = this.options;
    if (!url) return [];
    if (!apiKey) return this.sessionIds().map((id) => sessionLink(url, id));
    const reads = this.reads();
    const [sessions, errors] = await Promise.all([reads.sessions(), reads.errors()]);
    const ids = [...new Set([...sessions.map((s) => s.session_id), ...this.sessionIds()])];
    const starts = await reads.replayStarts(ids);
    const first = errors[0];
    const firstLink = first && errorLink(url, first, starts);
    if (firstLink) return [firstLink];
    return ids.map((id) => {
      const start = starts.get(id);
      return sessionLink(url, id, start === undefined ? undefined : endedAt - start);
    });
  }
}
