import { z } from '@hono/zod-openapi';
import { Time } from '../http/schemas';
import { perVital } from '../vitals/summary';
import { MAX_RELEASE_SESSIONS } from './store';

/** Query parameters and answers of the releases endpoints (docs/api.md, "Releases"). */

const app = z.string().min(1).max(200).openapi({ description: 'App name or alias', example: 'shop' });
const env = z.string().min(1).max(200).optional().openapi({
  description:
    'Only sessions of this environment (`deployment.environment.name`; a session naming none is `production`); without it, every environment. Test runs are always left out',
  example: 'production',
});
const release = (description: string) => z.string().min(1).max(200).openapi({ description, example: '2026.11.2' });

export const releasesQuery = z.strictObject({ app, env });

export const compareQuery = z.strictObject({
  app,
  env,
  release: release('The release to compare (`service.version` its sessions reported)'),
  previous: release(
    'The release to compare with; by default the one first seen last before `release` (first seen: its earliest session)',
  ).optional(),
});

export const ReleaseSchema = z
  .object({
    release: z.string(),
    first_seen: Time.openapi({ description: 'Start of its earliest session' }),
    sessions: z.number().int(),
  })
  .openapi('Release');

const vitalObject = <T extends z.ZodType>(schema: T) => z.object(perVital(() => schema));
const share = (description: string) => z.number().min(0).max(1).nullable().openapi({ description });

const FiguresSchema = z
  .object({
    release: z.string(),
    first_seen: Time.openapi({ description: 'Start of its earliest session' }),
    sessions: z.number().int().openapi({ description: 'All its sessions' }),
    sessions_read: z
      .number()
      .int()
      .openapi({
        description: `The sessions the figures are of: the newest ${MAX_RELEASE_SESSIONS.toLocaleString('en')} (all when fewer)`,
      }),
    error_free_sessions: z.number().int().openapi({ description: 'Sessions read that stored no error log' }),
    error_free_share: share('error_free_sessions / sessions_read; null without sessions'),
    spans: z.number().int().openapi({ description: 'Spans of the sessions read' }),
    span_errors: z.number().int().openapi({ description: 'Spans with status ERROR' }),
    span_error_rate: share('span_errors / spans; null without spans'),
    vitals: z.object({
      p75: vitalObject(z.number().nullable()).openapi({
        description: 'Nearest-rank 75th percentile of each vital, as the Web Vitals page computes it; null: no sample',
      }),
      rating: vitalObject(z.enum(['good', 'needs_improvement', 'poor']).nullable()),
      samples: vitalObject(z.number().int()),
      truncated: z
        .boolean()
        .openapi({ description: 'True when the sessions read had more than 200,000 vital points (200,000 were read)' }),
    }),
  })
  .openapi('ReleaseFigures');

const ChangeSchema = z
  .object({
    delta: z.number().nullable().openapi({ description: 'release − previous; null when either has no data' }),
    percent: z.number().nullable().openapi({ description: 'delta as a percentage of previous; null from zero' }),
  })
  .openapi('ReleaseChange');

export const CompareSchema = z
  .object({
    app: z.string(),
    current: FiguresSchema,
    previous: FiguresSchema.nullable().openapi({ description: 'null when the release is the app’s first' }),
    changes: z
      .object({
        vitals_p75: vitalObject(ChangeSchema),
        span_error_rate: ChangeSchema,
        error_free_share: ChangeSchema,
      })
      .nullable()
      .openapi({ description: 'null without a previous release' }),
  })
  .openapi('ReleaseComparison');
