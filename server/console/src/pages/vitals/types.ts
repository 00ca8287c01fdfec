import type { InferResponseType } from 'hono/client';
import type { vitalsClient } from '../../api/typed';

/** The Web Vitals summary (server/src/vitals/schemas.ts: Vitals). */

export const VITAL_NAMES = ['LCP', 'INP', 'CLS', 'FCP', 'TTFB'] as const;
export type VitalName = (typeof VITAL_NAMES)[number];
export type Rating = 'good' | 'needs_improvement' | 'poor';

/** The summary as the server's schema declares it, through the typed client (a renamed field breaks this build). */
export type Vitals = InferResponseType<typeof vitalsClient.index.$get, 200>;
export type VitalsPageRow = Vitals['pages'][number];
