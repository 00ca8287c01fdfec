import { createRoute, z } from '@hono/zod-openapi';
import { ERROR_SEVERITY, errorOfLog } from '../incidents/detect/error-records';
import type { Services } from '../http/env';
import { createRouter, errors, jsonAnswer, needs } from '../http/openapi';
import { frameJson } from '../issues/json';
import { Frame, MissingMapsSchema } from '../issues/schemas';
import { missingMaps } from '../sourcemaps/missing';
import { notFound } from '../shared/domain-errors';
import { errorLogRow } from './store';

const LogFrames = z
  .object({
    log_id: z.number().int(),
    raw: z.string().openapi({ description: 'The stack as the browser sent it (`exception.stacktrace`)' }),
    frames: z.array(Frame).openapi({
      description: "The error's own frames, each with its original position and source lines when a map matches",
    }),
    missing_maps: MissingMapsSchema,
  })
  .openapi('LogFrames');

const route = createRoute({
  ...needs('project.view'),
  tags: ['query'],
  method: 'get',
  path: '/logs/{id}/frames',
  summary: "An error log's stack, symbolicated with the project's source maps",
  description:
    "For one error log record of the key's project (severity ERROR or above, with `exception.stacktrace`): its frames, each mapped to the original file, line, column and function, with a few source lines around it, by debug ID or else by release and URL, as issues are. A map uploaded after the error still applies. 404 when the record is not an error with a stack.",
  request: { params: z.object({ id: z.coerce.number().int().positive().openapi({ example: 42 }) }) },
  responses: { 200: jsonAnswer('The frames', LogFrames), ...errors(400, 401, 403, 404) },
});

/** `GET /control-plane/logs/{id}/frames`: what a session's Errors pane shows for each error, not only an issue's newest. */
export function logFramesRoutes(services: Services) {
  return createRouter().openapi(route, async (c) => {
    const { id } = c.req.valid('param');
    const { projectId } = c.get('caller');
    const row = await errorLogRow(services.db, projectId, id);
    const error = row && (row.severity_number ?? 0) >= ERROR_SEVERITY ? errorOfLog(row) : undefined;
    const stacktrace = error?.raw.stacktrace;
    if (!error || !stacktrace) throw notFound(`no error log ${id} with a stack in this project`);
    const frames = await services.symbolicator.symbolicate({
      projectId,
      stacktrace,
      debugIds: error.debugIds,
      release: error.release,
    });
    return c.json(
      {
        log_id: id,
        raw: stacktrace,
        frames: frames.map(frameJson),
        missing_maps: missingMaps(frames, error.release, services.publicUrl),
      },
      200,
    );
  });
}
