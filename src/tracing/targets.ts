/**
 * Which request URLs receive the trace and session headers: the page's own origin, plus `propagation.origins`
 * (exact origins, or RegExps tested against the full URL). Everything else gets nothing: no third party learns the
 * session id, and no cross-origin request gains a header that would make the browser send a CORS preflight.
 */
export type PropagationTargets = ReadonlyArray<string | RegExp>;

/** True when a request to `url` (absolute) should carry the headers. */
export function shouldPropagate(url: URL, pageOrigin: string | undefined, targets: PropagationTargets): boolean {
  if (url.origin === pageOrigin) return true;
  return targets.some((target) => (typeof target === 'string' ? target === url.origin : safeTest(target, url.href)));
}

function safeTest(pattern: RegExp, text: string): boolean {
  // A global or sticky RegExp keeps lastIndex between calls, which would make every other test fail.
  pattern.lastIndex = 0;
  return pattern.test(text);
}
