import type { InferRequestType, InferResponseType } from 'hono/client';
import type { RuleEvidence } from '../incidents/types';
import type { alertRulesClient } from '../../api/typed';

/** The answers and bodies of `/control-plane/alert-rules` (server/src/alerts/schemas.ts), through the typed client. */
export type Rule = InferResponseType<typeof alertRulesClient.index.$get, 200>['data'][number];
export type RuleBody = InferRequestType<typeof alertRulesClient.index.$post>['json'];
export type PreviewBody = InferRequestType<typeof alertRulesClient.preview.$post>['json'];
export type Preview = InferResponseType<typeof alertRulesClient.preview.$post, 200>;
/** What a preview draws: the rule's query, window and condition. */
export type PreviewRule = Pick<
  PreviewBody,
  'signal' | 'query' | 'window_seconds' | 'condition' | 'recovery' | 'for_seconds'
>;

export type { RuleEvidence };
