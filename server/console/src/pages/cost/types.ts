import type { InferResponseType } from 'hono/client';
import type { FreshnessStatus, RecommendationTarget } from '../../../../src/api-types';
import type { costClient } from '../../api/typed';

/**
 * What the cost routes answer, as the server's schemas declare them, through the typed client. Where a schema is
 * looser than what the server writes (a status as text, a recommendation's target as an object), the server's own
 * type narrows it.
 */
export type { FreshnessStatus };
export type Summary = InferResponseType<typeof costClient.summary.$get, 200>;
export type Charges = Summary['charges'];
export type ByService = InferResponseType<(typeof costClient)['by-service']['$get'], 200>;
export type Estimate = InferResponseType<typeof costClient.estimate.$get, 200>;
type RecommendationsAnswer = InferResponseType<typeof costClient.recommendations.$get, 200>;
export type Recommendation = Omit<RecommendationsAnswer['recommendations'][number], 'target'> & {
  target: RecommendationTarget;
};
export type Recommendations = Omit<RecommendationsAnswer, 'recommendations'> & { recommendations: Recommendation[] };
export type Provider = InferResponseType<typeof costClient.providers.$get, 200>['data'][number];
