import type { Rating, VitalName } from '../pages/vitals/types';
import { Badge } from './status';

/**
 * What the console shows of a Web Vital wherever it appears (the Web Vitals page, a session's Vitals pane): its name,
 * its value in its unit and its rating as a badge.
 */

export const VITAL_TITLES: Record<VitalName, string> = {
  LCP: 'Largest Contentful Paint',
  INP: 'Interaction to Next Paint',
  CLS: 'Cumulative Layout Shift',
  FCP: 'First Contentful Paint',
  TTFB: 'Time to First Byte',
};

export const RATING_LABELS: Record<Rating, string> = {
  good: 'Good',
  needs_improvement: 'Needs improvement',
  poor: 'Poor',
};
const RATING_TONES = { good: 'good', needs_improvement: 'warn', poor: 'bad' } as const;

/** A vital's value in its unit: milliseconds as ms (seconds from 10 s), CLS as a plain score. */
export function formatVital(unit: string, value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  if (unit !== 'ms') return String(Number(value.toFixed(3)));
  return value >= 10_000 ? `${(value / 1000).toFixed(1)} s` : `${Math.round(value)} ms`;
}

/** The rating as a coloured badge whose text says it. */
export function RatingBadge({ rating }: { rating: Rating | null }) {
  if (rating === null) return <Badge tone="neutral">No data</Badge>;
  return <Badge tone={RATING_TONES[rating]}>{RATING_LABELS[rating]}</Badge>;
}

/**
 * The SDK's metric names, each with its vital and web.dev's thresholds: good up to `good`, poor above `poor`, needs
 * improvement between (the Web Vitals summary rates by the same; a session's points come unrated).
 */
export const VITAL_METRICS: Record<string, { vital: VitalName; unit: string; good: number; poor: number }> = {
  web_vital_lcp_ms: { vital: 'LCP', unit: 'ms', good: 2500, poor: 4000 },
  web_vital_inp_ms: { vital: 'INP', unit: 'ms', good: 200, poor: 500 },
  web_vital_cls: { vital: 'CLS', unit: '', good: 0.1, poor: 0.25 },
  web_vital_fcp_ms: { vital: 'FCP', unit: 'ms', good: 1800, poor: 3000 },
  web_vital_ttfb_ms: { vital: 'TTFB', unit: 'ms', good: 800, poor: 1800 },
};

export function rate(threshold: { good: number; poor: number }, value: number): Rating {
  return value <= threshold.good ? 'good' : value > threshold.poor ? 'poor' : 'needs_improvement';
}
