import { Badge } from '../../ui/status';
import type { Rating, VitalName } from './types';

export const VITAL_TITLES: Record<VitalName, string> = {
  LCP: 'Largest Contentful Paint',
  INP: 'Interaction to Next Paint',
  CLS: 'Cumulative Layout Shift',
  FCP: 'First Contentful Paint',
  TTFB: 'Time to First Byte',
};

export const RATING_LABELS: Record<Rating, string> = { good: 'Good', needs_improvement: 'Needs improvement', poor: 'Poor' };
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

/** web.dev's rule the server rates by: good up to `good`, poor above `poor` (for a value the server sent unrated). */
export function rate(threshold: { good: number; poor: number }, value: number): Rating {
  return value <= threshold.good ? 'good' : value > threshold.poor ? 'poor' : 'needs_improvement';
}
