/**
 * Absolute ingest URLs from the resolved `ingestUrl` ('' = the page's origin, '/prefix' = a path on it, or an
 * absolute base), and the test that keeps the SDK from tracing, propagating into or recording its own requests.
 */
export interface IngestUrls {
  url(path: string): string;
  isIngestUrl(url: string): boolean;
}

const INGEST_PREFIXES = ['/otlp/', '/ingest/'];

export function ingestUrls(base: string, pageOrigin: string | undefined): IngestUrls {
  const absoluteBase = base === '' || base.startsWith('/') ? `${pageOrigin ?? ''}${base}` : base;
  const url = (path: string): string => `${absoluteBase}${path}`;
  const prefixes = INGEST_PREFIXES.map(url);
  return { url, isIngestUrl: (candidate) => prefixes.some((prefix) => candidate.startsWith(prefix)) };
}
