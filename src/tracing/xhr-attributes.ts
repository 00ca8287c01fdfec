import type { ReadableSpan } from '@opentelemetry/sdk-trace-web';
import type { Attributes } from '../sdk/types';

const XHR_SCOPE = '@opentelemetry/instrumentation-xml-http-request';

/**
 * SPEC 2.9's HTTP attribute names for an XHR span, beside the current semantic-convention names the OpenTelemetry
 * instrumentation sets (`http.request.method`, `url.full`, `http.response.status_code`): the same names as
 * `browser.fetch` spans, so one query finds every request whichever API the app used.
 */
export function xhrHttpAttributes(span: ReadableSpan): Attributes | undefined {
  if (span.instrumentationScope.name !== XHR_SCOPE) return undefined;
  const { attributes } = span;
  const [seconds, nanos] = span.duration;
  const result: Attributes = {
    'http.method': String(attributes['http.request.method'] ?? ''),
    'http.url': String(attributes['url.full'] ?? ''),
    'http.status_code': Number(attributes['http.response.status_code'] ?? 0),
    'http.duration_ms': Math.round((seconds * 1000 + nanos / 1e6) * 1000) / 1000,
  };
  return result;
}
