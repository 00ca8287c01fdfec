import type { z } from 'zod';
import type { RecommendationTarget } from '../../../../src/cost/reports/recommendations/recommendation';
import type { FreshnessStatus } from '../../../../src/cost/reports/freshness';
import type * as schemas from '../../../../src/cost/routes/schemas';

/**
 * What the cost routes answer, as the server's schemas (server/src/cost/routes/schemas.ts) declare them, imported as
 * types only, so a renamed field breaks this build. Where a schema is looser than what the server writes (a status
 * as text, a recommendation's target as an object), the server's own type narrows it.
 */
export type { FreshnessStatus };
export type Summary = z.output<typeof schemas.Summary>;
export type Charges = Summary['charges'];
export type ByService = z.output<typeof schemas.ByService>;
export type Estimate = z.output<typeof schemas.Estimate>;
type RecommendationsAnswer = z.output<typeof schemas.Recommendations>;
export type Recommendation = Omit<RecommendationsAnswer['recommendations'][number], 'target'> & {
  target: RecommendationTarget;
};
export type Recommendations = Omit<RecommendationsAnswer, 'recommendations'> & { recommendations: Recommendation[] };
export type Provider = z.output<typeof schemas.Provider>;
