import { json, obj, str } from '../openapi-parts';

/** `GET /` (landing/routes.ts): HTML for people, JSON for programs that ask for it. */
export const LANDING_PATHS = {
  '/': {
    get: {
      tags: ['service'],
      summary: 'Where to go from here: the viewer, the demo (when enabled), this document and the docs',
      description: 'An HTML page (no script, strict Content-Security-Policy); with `Accept: application/json` first, the same links as JSON.',
      responses: {
        '200': {
          description: 'The landing page or its links',
          content: { 'text/html': {}, ...json(obj({ name: str, links: { type: 'object', additionalProperties: str } })) },
        },
      },
    },
  },
};
