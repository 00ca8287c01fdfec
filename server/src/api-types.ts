import type { limitsRoutes } from './limits/routes';
import type { alertRuleRoutes } from './alerts/routes';
import type { analysisRoutes } from './ai/routes';
import type { auditRoutes } from './audit/routes';
import type { costRoutes } from './cost/routes';
import type { githubRoutes } from './github/routes';
import type { incidentRoutes } from './incidents/routes';
import type { ingestHealthRoutes } from './ingest/health-routes';
import type { issueFacetRoutes } from './issues/facets-routes';
import type { issueRoutes } from './issues/routes';
import type { keyRoutes } from './keys/routes';
import type { logFramesRoutes } from './logs/routes';
import type { meRoutes } from './me/routes';
import type { inviteRoutes } from './members/invite-routes';
import type { memberRoutes } from './members/routes';
import type { mySessionRoutes } from './members/sessions-routes';
import type { channelRoutes } from './notify/channels/routes';
import type { deliveryRoutes } from './notify/deliveries/routes';
import type { DELIVERY_STATES } from './notify/schemas';
import type { ruleRoutes } from './notify/rules/routes';
import type { organisationRoutes } from './organisation/routes';
import type { projectRoutes } from './projects/routes';
import type { recordRoutes } from './records/routes';
import type { releaseRoutes } from './releases/routes';
import type { retentionRoutes } from './retention/routes';
import type { erasureRoutes } from './erasure/routes';
import type { searchRoutes } from './search/routes';
import type { sessionRoutes } from './sessions/routes';
import type { setupRoutes } from './setup/routes';
import type { sourcemapRoutes } from './sourcemaps/routes';
import type { testRunRoutes } from './test-runs/routes';
import type { traceRoutes } from './traces/routes';
import type { vitalsRoutes } from './vitals/routes';

/**
 * Types of the route groups for Hono's typed client, `hc<Api>(baseUrl)`: the paths, parameters, bodies and answers of
 * each group come from the schemas its routes are declared with, so a renamed field breaks the build of a caller.
 * Per group rather than the whole app: the app mounts groups conditionally, and small types keep tsc fast.
 * Each client's base URL is where the group is mounted, e.g. `${server}/control-plane/projects`.
 */
export type ProjectsApi = ReturnType<typeof projectRoutes>;
export type MeApi = ReturnType<typeof meRoutes>;
/** `/control-plane/setup` */
export type SetupApi = ReturnType<typeof setupRoutes>;
/** `/control-plane/search` */
export type SearchApi = ReturnType<typeof searchRoutes>;
/** `/control-plane/sessions` */
export type SessionsApi = ReturnType<typeof sessionRoutes>;
/** `/control-plane`: `/spans`, `/logs`, `/metric-points`, `/replay-chunks`, `/recipes` */
export type RecordsApi = ReturnType<typeof recordRoutes>;
/** `/control-plane`: `/logs/{id}/frames` */
export type LogFramesApi = ReturnType<typeof logFramesRoutes>;
export type TracesApi = ReturnType<typeof traceRoutes>;
export type VitalsApi = ReturnType<typeof vitalsRoutes>;
/** `/control-plane/releases` */
export type ReleasesApi = ReturnType<typeof releaseRoutes>;
/** `/control-plane/issues` */
export type IssuesApi = ReturnType<typeof issueRoutes>;
/** `/control-plane/issues/facets` */
export type IssueFacetsApi = ReturnType<typeof issueFacetRoutes>;
/** `/control-plane/issues`: `/{id}/analysis` */
export type AnalysisApi = ReturnType<typeof analysisRoutes>;
/** `/control-plane`: `/issues/{id}/pull-request` and the apps' repository connections */
export type GithubApi = ReturnType<typeof githubRoutes>;
/** `/control-plane/incidents` */
export type IncidentsApi = ReturnType<typeof incidentRoutes>;
/** `/control-plane/notifications/channels` */
export type ChannelsApi = ReturnType<typeof channelRoutes>;
/** `/control-plane/alert-rules` */
export type AlertRulesApi = ReturnType<typeof alertRuleRoutes>;
/** `/control-plane/notifications/rules` */
export type RulesApi = ReturnType<typeof ruleRoutes>;
/** `/control-plane/notifications`: `/deliveries`, `/{channelId}/test` */
export type DeliveriesApi = ReturnType<typeof deliveryRoutes>;
/** `/control-plane/cost` */
export type CostApi = ReturnType<typeof costRoutes>;
/** `/control-plane`: `/test-runs`, `/tests` */
export type TestRunsApi = ReturnType<typeof testRunRoutes>;
/** `/control-plane/ingest/health` */
export type IngestHealthApi = ReturnType<typeof ingestHealthRoutes>;
export type SourcemapsApi = ReturnType<typeof sourcemapRoutes>;
/** `/control-plane/members` */
export type MembersApi = ReturnType<typeof memberRoutes>;
/** `/control-plane/members/invitations` */
export type InvitationsApi = ReturnType<typeof inviteRoutes>;
/** `/control-plane/me/sessions` */
export type MySessionsApi = ReturnType<typeof mySessionRoutes>;
/** `/control-plane/keys` */
export type KeysApi = ReturnType<typeof keyRoutes>;
/** `/control-plane/audit` */
export type AuditApi = ReturnType<typeof auditRoutes>;
/** `/control-plane/organisation` */
export type OrganisationApi = ReturnType<typeof organisationRoutes>;
/** `/control-plane/retention` */
export type RetentionApi = ReturnType<typeof retentionRoutes>;
/** `/control-plane/erasures` */
export type ErasuresApi = ReturnType<typeof erasureRoutes>;
export type LimitsApi = ReturnType<typeof limitsRoutes>;

/**
 * Domain types whose schemas declare them looser than the server writes them (a status as text, evidence as a JSON
 * object); the console narrows its answers with them.
 */
export type { IssueStatus } from './incidents/detect/tables';
export type { IncidentEvidence, IncidentStatus, RuleEvidence, Severity } from './incidents/types';
export type { CostImpact } from './cost/impact';
export type { FreshnessStatus } from './cost/reports/freshness';
export type { RecommendationTarget } from './cost/reports/recommendations/recommendation';
export type { ChannelType } from './notify/kinds/types';
/** The states a notification delivery moves through. */
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** What an alert rule may be (alerts/rule.ts): the console's editor offers the choices the API checks. */
export {
  AGGREGATES,
  COMPARE_TO,
  FILTER_SIGNALS,
  NO_DATA,
  RULE_SEVERITIES,
  SIGNALS,
  WINDOW_SECONDS,
} from './alerts/rule';
export type { Signal } from './alerts/rule';
export { LOG_SEVERITIES } from './alerts/query/log-severity';
/** What a rule measures and its values, as its incidents say them (plain functions). */
export { formatValue, measureOf } from './alerts/evaluate/evidence';

/** How an issue's test facts read, shared by the console's issue page and the signed issue page (plain functions). */
export { reproductionText, seenInText } from './issues/test-wording';
