import { hc } from 'hono/client';
import type {
  AlertRulesApi,
  AnalysisApi,
  AuditApi,
  ChannelsApi,
  CostApi,
  DeliveriesApi,
  ErasuresApi,
  GithubApi,
  IncidentsApi,
  IngestHealthApi,
  InvitationsApi,
  IssueFacetsApi,
  IssuesApi,
  KeysApi,
  LogFramesApi,
  MeApi,
  MembersApi,
  MySessionsApi,
  OrganisationApi,
  RetentionApi,
  LimitsApi,
  RecordsApi,
  ReleasesApi,
  RulesApi,
  SearchApi,
  SessionsApi,
  SetupApi,
  TestRunsApi,
  TracesApi,
  VitalsApi,
} from '../../../src/api-types';
import { apiFetch, searchParams } from './client';

/**
 * Hono's typed clients, one per route group the server exports a type for (server/src/api-types.ts): paths,
 * parameters and answers come from the schemas the routes validate with, so a renamed field breaks this build.
 * Requests go through `apiFetch` (the tab's key in the Authorization header, the one error shape, sign-out on 401 and
 * on 403 to a read), so a client call either answers its success body or throws `ApiError`.
 * Path parameters are not encoded by the client: callers pass `encodeURIComponent(id)`.
 */
const via =
  (key?: string): typeof fetch =>
  async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const method = init?.method ?? 'GET';
    // A POST without a body still sends `{}`: the control plane reads a JSON body on its actions.
    const body =
      typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : method === 'POST' ? {} : undefined;
    const data = await apiFetch<unknown>(method, url, { body, signal: init?.signal ?? undefined, key });
    if (data === undefined) return new Response(null, { status: 204 });
    // apiFetch reads a text answer (the Playwright export) as a string: it stays text.
    const text = typeof data === 'string';
    return new Response(text ? data : JSON.stringify(data), {
      headers: { 'content-type': text ? 'text/plain; charset=utf-8' : 'application/json' },
    });
  };
const viaApi = via();

/** Requests of a client: through `apiFetch`, query values left out the way `api` leaves them out. */
const options = (fetch = viaApi) => ({ fetch, buildSearchParams: searchParams });
/** Where each group is mounted. */
const at = (path: string) => `${location.origin}/control-plane${path}`;

/** `key` checks a key that is not the tab's yet (sign-in). */
export const meClient = (key?: string) => hc<MeApi>(at('/me'), options(key === undefined ? viaApi : via(key)));
export const setupClient = hc<SetupApi>(at('/setup'), options());
export const searchClient = hc<SearchApi>(at('/search'), options());
export const sessionsClient = hc<SessionsApi>(at('/sessions'), options());
/** `/spans`, `/logs`, `/metrics`, `/replay/chunks`, `/recipes` */
export const recordsClient = hc<RecordsApi>(at(''), options());
export const logFramesClient = hc<LogFramesApi>(at(''), options());
export const tracesClient = hc<TracesApi>(at('/traces'), options());
export const vitalsClient = hc<VitalsApi>(at('/vitals'), options());
export const releasesClient = hc<ReleasesApi>(at('/releases'), options());
export const issuesClient = hc<IssuesApi>(at('/issues'), options());
export const issueFacetsClient = hc<IssueFacetsApi>(at('/issues/facets'), options());
export const analysisClient = hc<AnalysisApi>(at('/issues'), options());
export const githubClient = hc<GithubApi>(at(''), options());
export const incidentsClient = hc<IncidentsApi>(at('/incidents'), options());
export const alertRulesClient = hc<AlertRulesApi>(at('/alert-rules'), options());
export const channelsClient = hc<ChannelsApi>(at('/notifications/channels'), options());
export const rulesClient = hc<RulesApi>(at('/notifications/rules'), options());
export const deliveriesClient = hc<DeliveriesApi>(at('/notifications'), options());
export const costClient = hc<CostApi>(at('/cost'), options());
/** `/test-runs`, `/tests` */
export const testRunsClient = hc<TestRunsApi>(at(''), options());
export const ingestHealthClient = hc<IngestHealthApi>(at('/ingest/health'), options());
export const membersClient = hc<MembersApi>(at('/members'), options());
export const invitationsClient = hc<InvitationsApi>(at('/members/invitations'), options());
export const keysClient = hc<KeysApi>(at('/keys'), options());
export const auditClient = hc<AuditApi>(at('/audit'), options());
export const mySessionsClient = hc<MySessionsApi>(at('/me/sessions'), options());
export const organisationClient = hc<OrganisationApi>(at('/organisation'), options());
export const retentionClient = hc<RetentionApi>(at('/retention'), options());
export const erasuresClient = hc<ErasuresApi>(at('/erasures'), options());
/** `/limits`, `/usage` */
export const limitsClient = hc<LimitsApi>(at(''), options());
