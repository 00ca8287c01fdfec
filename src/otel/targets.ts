import type { PropagationTargets } from '../tracing/targets';

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * `propagation.origins` in the form the OpenTelemetry instrumentations take as `propagateTraceHeaderCorsUrls`. They
 * match a string only against the whole URL, where the SDK means an origin, so each origin becomes a RegExp anchored
 * at its end (`https://api.example.com` must not match `https://api.example.com.evil.net/`). A RegExp is copied
 * without its `g` and `y` flags: the instrumentations test it with `String.prototype.match`, which a sticky RegExp's
 * `lastIndex` would make fail every other time. Same-origin requests get the headers in both, without a pattern.
 */
export function propagationPatterns(targets: PropagationTargets): RegExp[] {
  return targets.map((target) =>
    typeof target === 'string'
      ? new RegExp(`^${escapeRegExp(target)}(?:[/?#]|$)`)
      : new RegExp(target.source, target.flags.replace(/[gy]/g, '')),
  );
}

/** A RegExp matching every URL under `base` (an absolute URL prefix such as the ingest's `/otlp/`). */
export function prefixPattern(base: string): RegExp {
  return new RegExp(`^${escapeRegExp(base)}`);
}
