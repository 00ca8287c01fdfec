import { api, type Page } from '../../api/client';

/** A stack frame as shown: where it ran, and where that is in the source when a source map told. */
export interface ShownFrame {
  function: string;
  location: string;
  /** The source position (symbolicated), when known. */
  original?: { function: string | null; location: string };
}

/** `file:line:col`. */
const where = (file: string, line: number, column: number) => `${file}:${line}:${column}`;

const CHROME = /^\s*at (?:(.+?) \()?(.+?):(\d+):(\d+)\)?$/;
const GECKO = /^\s*(.*?)@(.+?):(\d+):(\d+)$/;

/** Frames of a raw stack (V8's `at fn (url:1:2)` and Gecko/WebKit's `fn@url:1:2`); other lines are skipped. */
export function parseStack(raw: string): ShownFrame[] {
  const frames: ShownFrame[] = [];
  for (const line of raw.split('\n')) {
    const m = CHROME.exec(line) ?? GECKO.exec(line);
    if (!m) continue;
    frames.push({ function: m[1] || '(anonymous)', location: where(m[2]!, Number(m[3]), Number(m[4])) });
  }
  return frames;
}

/** The issue API's frame (server/src/issues/schemas.ts Frame). */
interface IssueFrame {
  function: string;
  url: string;
  line: number;
  column: number;
  original: { file: string; line: number; column: number; function: string | null } | null;
}

interface IssueDetail {
  id: string;
  stack: { raw: string | null; frames: IssueFrame[] };
  last_event: { session_id: string | null } | null;
}

const shown = (f: IssueFrame): ShownFrame => ({
  function: f.function || '(anonymous)',
  location: where(f.url, f.line, f.column),
  ...(f.original && { original: { function: f.original.function, location: where(f.original.file, f.original.line, f.original.column) } }),
});

/** Error types looked up, and issues read per type: enough for a session, bounded for one that failed a lot. */
const MAX_TYPES = 5;
const ISSUES_PER_TYPE = 5;

/**
 * Symbolicated frames for the session's error stacks, by raw stack. The control plane symbolicates only an issue's
 * newest error (GET /issues/{id}), so this finds the issues of the session's error types seen since it started and
 * keeps the stacks whose newest error is this session's with the same raw stack. Other errors keep their raw frames.
 */
export async function symbolicatedStacks(
  sessionId: string,
  errors: ReadonlyArray<{ type: string; stack: string }>,
  since: number,
  signal: AbortSignal,
): Promise<Map<string, ShownFrame[]>> {
  const found = new Map<string, ShownFrame[]>();
  const wanted = new Set(errors.map((e) => e.stack));
  const types = [...new Set(errors.map((e) => e.type))].slice(0, MAX_TYPES);
  for (const type of types) {
    const issues = await api.get<Page<{ id: string; type: string }>>('/issues', { q: type, from: since, limit: ISSUES_PER_TYPE }, signal);
    for (const issue of issues.data.filter((i) => i.type === type)) {
      const detail = await api.get<IssueDetail>(`/issues/${encodeURIComponent(issue.id)}`, {}, signal);
      const raw = detail.stack.raw;
      if (detail.last_event?.session_id === sessionId && raw !== null && wanted.has(raw) && detail.stack.frames.length > 0) {
        found.set(raw, detail.stack.frames.map(shown));
      }
    }
  }
  return found;
}
