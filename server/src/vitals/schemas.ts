import { z } from '@hono/zod-openapi';
import { Time, rangeQuery } from '../http/schemas';
import { RELATIVE_ERROR } from './rollup/histogram';
import { perVital, THRESHOLDS } from './summary';

/** Query parameters and answer of the Web Vitals summary (docs/api.md, "Web Vitals"). */

export const vitalsQuery = z.strictObject({
  ...rangeQuery,
  route: z.string().min(1).max(2048).optional().openapi({
    description:
      'The series and distribution of this page only: a route pattern from `pages` (a path is turned into its pattern)',
    example: '/products/:id',
  }),
  env: z.string().min(1).max(200).optional().openapi({
    description:
      'Only points of this environment (`deployment.environment.name`); without it, every environment but `test` (test runs)',
    example: 'production',
  }),
  bucket: z.enum(['hour', 'day']).optional().openapi({
    description: 'Width of the series buckets (UTC); hour for windows up to 2 days, else day, when not given',
    example: 'day',
  }),
});

const vitalObject = <T extends z.ZodType>(schema: T) => z.object(perVital(() => schema));
const RatingSchema = z.enum(['good', 'needs_improvement', 'poor']);

/** Samples, p75 and rating of each vital over a set of points. */
const Figures = z.object({
  samples: z.number().int().openapi({ description: 'Vital points, all vitals together' }),
  p75: vitalObject(z.number().nullable()),
  rating: vitalObject(RatingSchema.nullable()),
});

export const VitalsSchema = z
  .object({
    window: z.object({ from: Time, to: Time }),
    bucket: z.enum(['hour', 'day']),
    route: z
      .string()
      .nullable()
      .openapi({ description: 'The route the series and distribution are of; null: all pages' }),
    truncated: z.boolean().openapi({
      description: 'True when the window held more vital points than the summary reads (the newest ones are read)',
    }),
    approximation: z
      .object({
        rolled_up: z.number().min(0).max(1).openapi({
          description:
            'Share of the samples read from hourly and daily rollups (0: every one from the raw points, and the p75s exact)',
        }),
        relative_error: z.number().min(0).openapi({
          description:
            "Bound on each p75's relative error: the rollups' histogram buckets (0 when nothing came from rollups). Samples and the distribution are exact either way",
        }),
      })
      .openapi({ description: 'How much of the answer came from rollups, and how close its percentiles are' }),
    thresholds: vitalObject(z.object({ good: z.number(), poor: z.number(), unit: z.string() })).openapi({
      description: "web.dev's thresholds: good when at most `good`, poor when above `poor`, needs improvement between",
    }),
    pages: z
      .array(
        z.object({
          route: z
            .string()
            .openapi({ description: 'Route pattern of `url.path` (ids as `:id`); (unknown) for points without one' }),
          ...Figures.shape,
        }),
      )
      .openapi({ description: 'Pages by samples, most first, at most 100' }),
    overall: Figures.openapi({ description: 'The whole window: of `route` when given, else of every page' }),
    series: vitalObject(
      z.array(
        z.object({ t: Time.openapi({ description: 'Bucket start' }), p75: z.number(), samples: z.number().int() }),
      ),
    ).openapi({
      description: 'p75 per bucket, oldest first; buckets without points are left out',
    }),
    distribution: vitalObject(
      z.object({ good: z.number().int(), needs_improvement: z.number().int(), poor: z.number().int() }),
    ).openapi({
      description: 'Points per rating',
    }),
  })
  .openapi('Vitals');

export const VITALS_EXAMPLE: z.input<typeof VitalsSchema> = {
  window: { from: '2026-01-01T00:00:00.000Z', to: '2026-01-08T00:00:00.000Z' },
  bucket: 'day',
  route: null,
  truncated: false,
  approximation: { rolled_up: 0.98, relative_error: RELATIVE_ERROR },
  thresholds: THRESHOLDS,
  pages: [
    {
      route: '/products/:id',
      samples: 123,
      p75: { LCP: 2100, INP: 180, CLS: 0.05, FCP: 1200, TTFB: 650 },
      rating: { LCP: 'good', INP: 'good', CLS: 'good', FCP: 'good', TTFB: 'good' },
    },
  ],
  overall: {
    samples: 123,
    p75: { LCP: 2100, INP: 180, CLS: 0.05, FCP: 1200, TTFB: 650 },
    rating: { LCP: 'good', INP: 'good', CLS: 'good', FCP: 'good', TTFB: 'good' },
  },
  series: perVital((n) => (n === 'LCP' ? [{ t: '2026-01-01T00:00:00.000Z', p75: 2000, samples: 12 }] : [])),
  distribution: perVital((n) =>
    n === 'LCP' ? { good: 10, needs_improvement: 3, poor: 1 } : { good: 0, needs_improvement: 0, poor: 0 },
  ),
};
