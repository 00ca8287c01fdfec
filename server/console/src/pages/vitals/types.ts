/** The Web Vitals summary (server/src/query/vitals-schemas.ts: Vitals). */

export const VITAL_NAMES = ['LCP', 'INP', 'CLS', 'FCP', 'TTFB'] as const;
export type VitalName = (typeof VITAL_NAMES)[number];
export type Rating = 'good' | 'needs_improvement' | 'poor';
type PerVital<T> = Record<VitalName, T>;

export interface VitalsPageRow {
  route: string;
  samples: number;
  p75: PerVital<number | null>;
  rating: PerVital<Rating | null>;
}

export interface Vitals {
  window: { from: string; to: string };
  bucket: 'hour' | 'day';
  route: string | null;
  truncated: boolean;
  thresholds: PerVital<{ good: number; poor: number; unit: string }>;
  pages: VitalsPageRow[];
  series: PerVital<Array<{ t: string; p75: number; samples: number }>>;
  distribution: PerVital<Record<Rating, number>>;
}
