import { createHash } from 'node:crypto';
import { invalid } from '../shared/domain-errors';

/** What a deletion request names: a user's id, one session, or any value of one attribute. */
export type ErasureTarget =
  | { kind: 'user_id'; value: string }
  | { kind: 'session_id'; value: string }
  | { kind: 'attribute'; key: string; value: string };

export type TargetKind = ErasureTarget['kind'];
export const TARGET_KINDS = ['user_id', 'session_id', 'attribute'] as const satisfies readonly TargetKind[];

/** Longest value a target may name: ingest bounds ids and attribute values well below it. */
export const MAX_TARGET_CHARS = 1024;
/**
 * An attribute key as OpenTelemetry names them (`user.id`, `customer.email`, `app.tenant-id`): the key goes into a JSON
 * path (SQLite) and is shown in answers, so it is held to the characters keys use.
 */
export const ATTRIBUTE_KEY = /^[A-Za-z0-9_.:/-]{1,128}$/;

/** The attributes records name their user with: the svc SDK's `user.id` and OpenTelemetry's older `enduser.id`. */
export const USER_ID_ATTRIBUTES = ['user.id', 'enduser.id'] as const;

/** What answers, logs and the audit log show of a target: its kind, the attribute's key, a digest of the value. */
export interface MaskedTarget {
  kind: TargetKind;
  key?: string;
  digest: string;
}

/**
 * `sha256:` and the first 16 hex digits of SHA-256 over the job's id and the value: enough to tell jobs apart and for
 * someone who knows the value to check which job erased it, never the value itself. Salted with the job's id so the
 * same person's digests in two jobs cannot be matched against each other or a table of common e-mails.
 */
export const digestOf = (jobId: string, value: string): string =>
  `sha256:${createHash('sha256').update(`${jobId}\n${value}`).digest('hex').slice(0, 16)}`;

/** The target as stored (kind, key, value), checked again: a row written by another version is refused, not run. */
export function targetOf(kind: string, key: string | null, value: string): ErasureTarget {
  if (kind === 'user_id' || kind === 'session_id') return { kind, value };
  if (kind === 'attribute' && key !== null) return { kind, key, value };
  throw invalid(`unknown erasure target ${kind}`, 'invalid_request', { field: 'target' });
}

/**
 * The one target a request or command names (exactly one of `user_id`, `session_id`, `attribute`), each value a
 * non-empty string within {@link MAX_TARGET_CHARS}; refusals name the field.
 */
export function parseTarget(input: {
  user_id?: string;
  session_id?: string;
  attribute?: { key: string; value: string };
}): ErasureTarget {
  const given = TARGET_KINDS.filter((k) => input[k] !== undefined);
  if (given.length !== 1)
    throw invalid(
      `name exactly one of user_id, session_id or attribute (got ${given.length === 0 ? 'none' : given.join(' and ')})`,
      'invalid_request',
      { field: given[1] ?? 'user_id' },
    );
  const check = (value: string, field: string) => {
    if (value.trim() === '' || value.length > MAX_TARGET_CHARS)
      throw invalid(
        `${field} must be a non-empty string of at most ${MAX_TARGET_CHARS} characters`,
        'invalid_request',
        {
          field,
        },
      );
    return value;
  };
  if (input.attribute !== undefined) {
    const { key, value } = input.attribute;
    if (!ATTRIBUTE_KEY.test(key))
      throw invalid(
        'attribute.key must be an attribute name: letters, digits and _ . : / -, at most 128',
        'invalid_request',
        {
          field: 'attribute.key',
        },
      );
    return { kind: 'attribute', key, value: check(value, 'attribute.value') };
  }
  if (input.session_id !== undefined) return { kind: 'session_id', value: check(input.session_id, 'session_id') };
  return { kind: 'user_id', value: check(input.user_id!, 'user_id') };
}
