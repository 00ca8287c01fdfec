import type { ApiClient } from './api';
import { sessionLink } from './links';
import { errorMessage, type FrameRecord, type LogRecord } from './records';

/** Frames a report shows per error; the console has them all. */
const MAX_FRAMES = 8;

/** `fn (file:line:column)`: the original place when a source map matched, else where the browser ran it. */
export function formatFrame(f: FrameRecord): string {
  const o = f.original;
  const fn = o?.function ?? f.function ?? '<anonymous>';
  const place = o
    ? `${o.file}:${o.line}${o.column === null ? '' : `:${o.column}`}`
    : `${f.url ?? '?'}:${f.line ?? '?'}:${f.column ?? '?'}`;
  return `at ${fn} (${place})`;
}

/** The error's stack as the server symbolicates it; the raw stack when it cannot (no stack, or the call failed). */
async function stackOf(api: ApiClient, log: LogRecord): Promise<string[]> {
  try {
    const { frames } = await api.get<{ frames: FrameRecord[] }>(`/logs/${log.id}/frames`);
    return frames.slice(0, MAX_FRAMES).map(formatFrame);
  } catch {
    const raw = log.attributes['exception.stacktrace'];
    return typeof raw === 'string'
      ? raw
          .split('\n')
          .slice(1, MAX_FRAMES + 1)
          .map((l) => l.trim())
      : [];
  }
}

/**
 * Where the console opens the replay of `log`'s session: at the error, counted as the session page counts `?t=`, from
 * the start of the session's replay (`starts`, see TestReads.replayStarts).
 */
export function errorLink(url: string, log: LogRecord, starts: ReadonlyMap<string, number>): string | undefined {
  if (!log.session_id) return undefined;
  const start = starts.get(log.session_id);
  const offset = start === undefined ? undefined : Date.parse(log.time) - start;
  return sessionLink(url, log.session_id, offset !== undefined && Number.isFinite(offset) ? offset : undefined);
}

/** Each error as a numbered block: its message, symbolicated frames and the replay link at that moment. */
export async function describeErrors(
  api: ApiClient,
  url: string,
  errors: readonly LogRecord[],
  starts: ReadonlyMap<string, number>,
): Promise<string> {
  const blocks = await Promise.all(
    errors.map(async (log, i) => {
      const link = errorLink(url, log, starts);
      const lines = [`${i + 1}. ${errorMessage(log)}`, ...(await stackOf(api, log)).map((l) => `     ${l}`)];
      if (link) lines.push(`   replay: ${link}`);
      return lines.join('\n');
    }),
  );
  return blocks.join('\n\n');
}
