import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv, Services } from './http/env';

type Document = ReturnType<OpenAPIHono<AppEnv>['getOpenAPI31Document']>;

const INFO = {
  title: 'svc reference server',
  version: '0.1.0',
  description:
    'Telemetry ingest (OTLP/HTTP, session replay) and the control-plane query API. Every error is `{"error": {"code", "message", "details"?}}`; ' +
    'a 400 names the offending value in `details.field`. Interactive reference: `/docs/api`.',
};

/** The OpenAPI 3.1 document of `app`, generated from the schemas its routes are declared with. */
export function openApiDocument(app: OpenAPIHono<AppEnv>, serverUrl: string): Document {
  return app.getOpenAPI31Document({ openapi: '3.1.0', info: INFO, servers: serverUrl ? [{ url: serverUrl }] : [] });
}

const documentRoute = createRoute({
  method: 'get',
  path: '/openapi.json',
  tags: ['service'],
  summary: 'This document: OpenAPI 3.1, generated from the schemas the routes validate with',
  responses: {
    200: {
      description: 'OpenAPI 3.1',
      content: { 'application/json': { schema: z.object({ openapi: z.literal('3.1.0') }).passthrough() } },
    },
  },
});

/** `GET /openapi.json`, registered after every other route; built once, on the first request. */
export function serveOpenApi(app: OpenAPIHono<AppEnv>, services: Pick<Services, 'publicUrl'>): void {
  // The public URL is known only once the server listens, so the document is built on the first request.
  let built: { url: string; document: Document } | undefined;
  app.openapi(documentRoute, (c) => {
    if (built?.url !== services.publicUrl)
      built = { url: services.publicUrl, document: openApiDocument(app, services.publicUrl) };
    return c.json(built.document as never, 200);
  });
}
