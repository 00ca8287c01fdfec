import type { ApiClient } from './api';
import {
  isError,
  VITAL_METRICS,
  type LogRecord,
  type MetricPointRecord,
  type SessionDetail,
  type SessionRecord,
  type SpanRecord,
} from './records';

/** Which test's data to read: its run, Playwright testId and attempt. */
export interface TestKey {
  runId: string;
  testId: string;
  retry: number;
}

/**
 * Reads one test attempt's records: its sessions as the server linked them (`test.*` resource attributes), plus any
 * session the fixture saw in the pages, and every log, span or metric point of those sessions.
 */
export class TestReads {
  constructor(
    private readonly api: ApiClient,
    private readonly key: TestKey,
    private readonly knownSessions: () => string[],
  ) {}

  /** This attempt's sessions; earlier attempts (retries) of the same test are left out. */
  async sessions(): Promise<SessionRecord[]> {
    const { runId, testId, retry } = this.key;
    const all = await this.api.all<SessionRecord>('/sessions', { test_run: runId, test_id: testId }, 500);
    return all.filter((s) => s.test === null || s.test === undefined || s.test.retry === retry);
  }

  private async sessionIds(): Promise<string[]> {
    const linked = (await this.sessions()).map((s) => s.session_id);
    return [...new Set([...linked, ...this.knownSessions()])];
  }

  /** Every record of `path` in this attempt's sessions, oldest first. */
  private async perSession<T extends { time: string }>(path: string): Promise<T[]> {
    const ids = await this.sessionIds();
    const pages = await Promise.all(ids.map((id) => this.api.all<T>(path, { session_id: id })));
    return pages.flat().sort((a, b) => Date.parse(a.time) - Date.parse(b.time));
  }

  /**
   * When each session's replay starts, the moment the console's session page counts `?t=` from (the first replay's
   * start, else the session's first record); sessions the server does not know are left out.
   */
  async replayStarts(ids: Iterable<string>): Promise<Map<string, number>> {
    const starts = new Map<string, number>();
    await Promise.all(
      [...new Set(ids)].map(async (id) => {
        const detail = await this.api.get<SessionDetail>(`/sessions/${encodeURIComponent(id)}`).catch(() => undefined);
        if (detail) starts.set(id, Date.parse(detail.replays[0]?.start_time ?? detail.first_seen));
      }),
    );
    return starts;
  }

  logs = (): Promise<LogRecord[]> => this.perSession<LogRecord>('/logs');
  spans = (): Promise<SpanRecord[]> => this.perSession<SpanRecord>('/spans');

  async errors(): Promise<LogRecord[]> {
    return (await this.logs()).filter(isError);
  }

  async vitals(): Promise<MetricPointRecord[]> {
    return (await this.perSession<MetricPointRecord>('/metrics')).filter((p) => VITAL_METRICS.has(p.name));
  }
}
