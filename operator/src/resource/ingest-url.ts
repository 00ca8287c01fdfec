/**
 * Why `value` cannot be an ingest URL (agents append `/otlp/v1/<signal>` to it), or undefined when it can. `source`
 * names where it came from (`--ingest-url`, `ingestUrl`) so the message points at what to fix.
 */
export function ingestUrlProblem(value: string, source: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${source} must be an http(s) URL such as https://ingest.example.com, got "${value}"`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${source} must be an http(s) URL, got "${value}"`;
  return undefined;
}
