import { openApiDocument } from '../../server/src/api-document';
import { createApp, type AppOptions } from '../../server/src/app';

/** The app with inert services: routes are only listed, never called. Incidents, notifications and cost are mounted too. */
function inertApp(options: Pick<AppOptions, 'demo'>) {
  const services = {
    db: {} as never,
    dialect: 'sqlite' as const,
    writer: {} as never,
    clock: { now: Date.now },
    bodyLimit: 1024,
    publicUrl: '',
    log: () => undefined,
    symbolicator: {} as never,
    refusals: {} as never,
    limits: {} as never,
  };
  const notify = { clock: { now: Date.now }, publicUrl: () => '' } as unknown as AppOptions['notify'];
  const cost = { clock: { now: Date.now } } as unknown as AppOptions['cost'];
  return createApp(services, { corsOrigins: '*', notify, cost, ...options });
}

/** Every route the app registers, as `get /control-plane/incidents/{id}` (OpenAPI's way of writing parameters). */
export function appRoutes(options: Pick<AppOptions, 'demo'> = {}): Set<string> {
  const app = inertApp(options);
  // Hono writes path parameters as `:name`, OpenAPI as `{name}`.
  return new Set(
    app.routes
      .filter((r) => r.method !== 'ALL')
      .map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:(\w+)/g, '{$1}')}`),
  );
}

/** The OpenAPI document the app generates from its route declarations. */
export function appDocument(options: Pick<AppOptions, 'demo'> = {}): {
  paths: Record<string, Record<string, unknown>>;
} {
  return openApiDocument(inertApp(options), '') as unknown as { paths: Record<string, Record<string, unknown>> };
}
