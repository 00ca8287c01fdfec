/**
 * Console addresses (the console is served by the svc server at its root): a session's replay at a moment, a run,
 * a test's history.
 */

/** The replay of `sessionId`, opened `offsetMs` after its start when given (the console's `?t=`, in ms). */
export function sessionLink(url: string, sessionId: string, offsetMs?: number): string {
  const at = offsetMs === undefined ? '' : `?t=${Math.max(0, Math.round(offsetMs))}`;
  return `${url}/session/${encodeURIComponent(sessionId)}${at}`;
}

/** Annotation type of what the fixture tells Playwright's report: the replay of a failed test, an unchecked assertion. */
export const LINK_ANNOTATION = 'svc';

export const runLink = (url: string, runId: string) => `${url}/test-run/${encodeURIComponent(runId)}`;
