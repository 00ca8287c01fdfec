import { z } from '@hono/zod-openapi';
import { invalid } from '../shared/domain-errors';

const MAX_NAME = 128;

/**
 * Names of projects, apps, aliases and keys: non-empty, trimmed, printable (no NUL or other control characters),
 * bounded. App names and aliases are what telemetry carries as `service.name`; project names pick a project in the
 * CLI. `label` names the value in the message; `field` is `details.field` for programs (the request's field name).
 */
export function checkName(label: string, value: unknown, field = label): string {
  const fail = (problem: string) => invalid(`${label} ${problem}`, 'invalid_request', { field });
  if (typeof value !== 'string' || value.length === 0) throw fail('must be a non-empty string');
  if (value.length > MAX_NAME) throw fail(`must be at most ${MAX_NAME} characters`);
  if (value.trim() !== value || /[\u0000-\u001f\u007f]/.test(value))
    throw fail('must not have leading or trailing spaces or control characters');
  return value;
}

/** The same rule as a request schema, for routes declared with zod (their 400 names the field the same way). */
export const nameSchema = (max = MAX_NAME) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((v) => v.trim() === v && !/[\u0000-\u001f\u007f]/.test(v), {
      message: 'must not have leading or trailing spaces or control characters',
    })
    .openapi({ description: 'Printable, no leading or trailing spaces' });

/** A project's, app's or key's name. */
export const NameSchema = nameSchema();
