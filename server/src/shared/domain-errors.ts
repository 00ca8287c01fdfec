/**
 * What domain code (stores, services, parsers) throws when it refuses something, in its own words: the kind of
 * refusal, a stable `code` for programs and a `message` that names the field for people. It knows nothing of HTTP;
 * the one `onError` (http/errors.ts `domainErrorStatus`) turns each kind into its status, so a store can be called
 * from a route, the CLI or a background job alike.
 */
export type DomainErrorKind =
  /** The thing asked for does not exist (or is not visible to the caller). */
  | 'not_found'
  /** The input is malformed or out of bounds; `message` names the field. */
  | 'invalid'
  /** The request is too large to take. */
  | 'too_large'
  /** The content type or encoding is not one we read. */
  | 'unsupported'
  /** The input is well formed but names something it may not (a `service.name` that is no app of the project). */
  | 'unprocessable'
  /** The input is valid but clashes with the current state (a name taken, a job running, nothing to apply). */
  | 'conflict'
  /** The caller may not do this. */
  | 'forbidden'
  /** A service we depend on (GitHub, a model provider) failed or refused. */
  | 'upstream'
  /** A service we depend on is rate limiting us; retry later. */
  | 'upstream_busy'
  /** A service we depend on did not answer in time. */
  | 'upstream_timeout'
  /** We are over a limit of our own for now; retry later. */
  | 'busy'
  /** A part of ours (storage) cannot take the request for the moment; retry later. */
  | 'unavailable';

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    /** For `busy`, `upstream_busy` and `unavailable`: seconds after which a retry may succeed. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const notFound = (message: string, code = 'not_found') => new DomainError('not_found', code, message);
export const invalid = (message: string, code = 'invalid_request', details?: unknown) =>
  new DomainError('invalid', code, message, details);
export const conflict = (code: string, message: string, details?: unknown) =>
  new DomainError('conflict', code, message, details);
export const forbidden = (message: string, code = 'forbidden') => new DomainError('forbidden', code, message);
