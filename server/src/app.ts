import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { analysisRoutes } from './ai/routes';
import { alertRuleRoutes } from './alerts/routes';
import { auditRoutes } from './audit/routes';
import type { AiSettings } from './ai/settings';
import { costRoutes } from './cost/routes/index';
import type { CostServices } from './cost/services';
import { demoRoutes, type DemoOptions } from './demo/routes';
import { erasureRoutes } from './erasure/routes';
import type { ErasureWorker } from './erasure/worker';
import { apiReferenceRoutes } from './docs/routes';
import { authRoutes } from './auth/routes';
import { oidcRoutes } from './auth/oidc/routes';
import type { OidcSettings } from './auth/oidc/settings';
import { githubRoutes } from './github/routes';
import { controlAuth } from './http/auth';
import { RoutePermissions } from './http/permissions';
import type { AppEnv, Services } from './http/env';
import { ApiError, errorResponse } from './http/errors';
import { answerError } from './http/on-error';
import { noSniff, refuseNul } from './http/middleware';
import { createRouter, registerSecuritySchemes } from './http/openapi';
import { incidentPages } from './incidents/pages';
import { chatIntegrationRoutes } from './integrations/chat/routes';
import { incidentRoutes } from './incidents/routes';
import { ingestHealthRoutes } from './ingest/health-routes';
import { ingestRoutes } from './ingest/routes';
import { issueFacetRoutes } from './issues/facets-routes';
import { issuePages } from './issues/pages';
import { issueRoutes } from './issues/routes';
import { landingRoutes } from './landing/routes';
import { consoleRoutes } from './console/routes';
import { channelRoutes } from './notify/channels/routes';
import { deliveryRoutes } from './notify/deliveries/routes';
import { integrationRoutes } from './integrations/routes';
import { ruleRoutes } from './notify/rules/routes';
import type { NotifyServices } from './notify/services';
import { serveOpenApi } from './api-document';
import { meRoutes } from './me/routes';
import { keyRoutes } from './keys/routes';
import { invitationRoutes } from './members/invitation-routes';
import { inviteRoutes } from './members/invite-routes';
import { memberRoutes } from './members/routes';
import { mySessionRoutes } from './members/sessions-routes';
import { organisationRoutes } from './organisation/routes';
import { projectRoutes } from './projects/routes';
import { limitsRoutes } from './limits/routes';
import { retentionRoutes } from './retention/routes';
import { retentionDefaults, type RetentionDefaults } from './retention/signals';
import { setupRoutes } from './setup/routes';
import { appRoutes } from './apps/routes';
import { exportRoutes } from './export/routes';
import { recordRoutes } from './records/routes';
import { logFramesRoutes } from './logs/routes';
import { traceRoutes } from './traces/routes';
import { searchRoutes } from './search/routes';
import { vitalsRoutes } from './vitals/routes';
import { releaseRoutes } from './releases/routes';
import { sessionRoutes } from './sessions/routes';
import { sourcemapRoutes } from './sourcemaps/routes';
import { testRunRoutes } from './test-runs/routes';

export interface AppOptions {
  corsOrigins: '*' | readonly string[];
  /** Serves the SDK demo page under /demo/ when given. */
  demo?: DemoOptions;
  /** Incidents and notifications; left out by tests of other parts. */
  notify?: NotifyServices;
  /** Cost tracking; left out by tests of other parts. */
  cost?: CostServices;
  /** The model issue analyses ask; heuristic analyses without one. */
  ai?: AiSettings;
  /** Single sign-on through an OpenID provider (SVC_OIDC_*): its routes at /auth/oidc, its button on the sign-in page. */
  oidc?: OidcSettings;
  /** The server's retention defaults (SVC_RETENTION_*); default 30 days for every signal. */
  retention?: RetentionDefaults;
  /** Deletion jobs of this process, woken when one is queued; without it, queued jobs wait for a worker's poll. */
  erasures?: ErasureWorker;
  /** The shortest window an alert rule may have (`--alert-min-window-seconds`, for tests); default 60 s. */
  alertMinWindowSeconds?: number;
}

const healthRoute = createRoute({
  method: 'get',
  path: '/healthz',
  tags: ['service'],
  summary: 'Liveness and database reachability',
  responses: {
    200: { description: 'ok', content: { 'application/json': { schema: z.object({ status: z.literal('ok') }) } } },
  },
});

/**
 * The whole HTTP surface: ingest, query API, service endpoints and the optional demo page, with one error shape for
 * every failure.
 */
export function createApp(services: Services, options: AppOptions): OpenAPIHono<AppEnv> {
  const app = createRouter();
  registerSecuritySchemes(app);

  app.onError(answerError(services.log));
  app.notFound((c) => errorResponse(c, new ApiError(404, 'not_found', `no endpoint ${c.req.method} ${c.req.path}`)));
  // Registered before every route, so they wrap each of them (noSniff also the answers of onError and notFound).
  app.use('*', noSniff);
  app.use('/control-plane/*', refuseNul);
  // One authentication and authorisation step for every control-plane operation, with the permission each declares.
  const permissions = new RoutePermissions();
  app.use('/control-plane/*', controlAuth(services, permissions));

  app.openapi(healthRoute, async (c) => {
    await services.db.selectFrom('tenants').select('id').limit(1).execute();
    return c.json({ status: 'ok' as const }, 200);
  });

  app.route('/', ingestRoutes(services, options.corsOrigins));
  const { notify } = options;
  if (notify) {
    // Keyless: notification links carry their own signature, the chat app signs its requests.
    app.route('/', incidentPages(notify));
    app.route('/', issuePages(services, notify.box));
    app.route(
      '/integrations/chat',
      chatIntegrationRoutes({
        commands: notify.incidents,
        db: notify.db,
        integrations: (projectId) => notify.integrations.of(projectId),
        clock: notify.clock,
      }),
    );
  }
  // Public: signing in needs no key (docs/teams.md, "Sign-in").
  app.route('/auth', authRoutes(services, options.oidc ? { sso: { name: options.oidc.name } } : {}));
  if (options.oidc) app.route('/auth/oidc', oidcRoutes(services, options.oidc));
  // Public as well: the invitation link is the credential (docs/teams.md, "Members and invitations").
  app.route('/auth/invitations', invitationRoutes(services));
  app.route('/control-plane/projects', projectRoutes(services));
  app.route('/control-plane', controlPlaneRoutes(services, options));
  // Outside the ingest CORS and key middleware: the page and its echo endpoint are same-origin and keyless.
  if (options.demo) app.route('/', demoRoutes(services, options.demo));
  app.route('/', consoleRoutes());
  app.route('/', landingRoutes(services, { demo: options.demo !== undefined }));
  app.route('/', apiReferenceRoutes());
  // Last: the document describes every route registered above, and the permissions are read from it.
  serveOpenApi(app, services);
  permissions.load(app);
  return app;
}

/** Every `/control-plane` route but projects' (behind `controlAuth`, registered on the app before them). */
function controlPlaneRoutes(services: Services, options: AppOptions) {
  const controlPlane = createRouter();
  controlPlane
    .route('/', appRoutes(services))
    .route('/', recordRoutes(services))
    .route('/sessions', sessionRoutes(services))
    .route('/traces', traceRoutes(services))
    .route('/vitals', vitalsRoutes(services))
    .route('/releases', releaseRoutes(services))
    .route('/alert-rules', alertRuleRoutes(services, options.notify?.incidents, options.alertMinWindowSeconds))
    .route('/', logFramesRoutes(services));
  const { notify } = options;
  if (notify) {
    controlPlane
      .route('/incidents', incidentRoutes(notify, services))
      .route('/notifications/channels', channelRoutes(notify))
      .route('/notifications/rules', ruleRoutes(notify))
      .route('/notifications', deliveryRoutes(notify))
      .route('/integrations', integrationRoutes(notify))
      // Repositories and fix pull requests: their GitHub credentials are sealed with the notifications' secret box.
      .route(
        '/',
        githubRoutes({
          db: services.db,
          box: notify.box,
          clock: notify.clock,
          publicUrl: notify.publicUrl,
          log: services.log,
        }),
      );
  }
  if (options.cost) controlPlane.route('/cost', costRoutes(options.cost));
  // People and machine keys (docs/teams.md); the invitations before the members, whose `/{user_id}` would take them.
  controlPlane
    .route('/members/invitations', inviteRoutes(services))
    .route('/members', memberRoutes(services))
    .route('/keys', keyRoutes(services))
    .route('/me/sessions', mySessionRoutes(services))
    .route('/organisation', organisationRoutes(services, options.oidc));
  controlPlane.route(
    '/me',
    meRoutes(services, { aiAnalysis: options.ai !== undefined, demo: options.demo !== undefined }),
  );
  controlPlane.route('/setup', setupRoutes(services)).route('/ingest/health', ingestHealthRoutes(services));
  controlPlane.route('/sourcemaps', sourcemapRoutes(services));
  controlPlane.route('/audit', auditRoutes(services));
  controlPlane.route('/export', exportRoutes(services));
  controlPlane.route('/retention', retentionRoutes(services, options.retention ?? retentionDefaults(30)));
  controlPlane.route('/', limitsRoutes(services));
  controlPlane.route('/erasures', erasureRoutes(services, options.erasures));
  controlPlane.route('/search', searchRoutes(services));
  // Playwright runs: the reporter writes with a control key, the console reads with either key.
  controlPlane.route('/', testRunRoutes(services));
  // Before the issue routes, whose `/{id}` would take `facets` for an id.
  controlPlane.route('/issues/facets', issueFacetRoutes(services));
  controlPlane.route('/issues', issueRoutes(services));
  controlPlane.route('/issues', analysisRoutes(services, options.ai));
  return controlPlane;
}
