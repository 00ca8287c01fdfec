import type { issueRoutes } from './issues/routes';
import type { channelRoutes } from './notify/channels/routes';
import type { ruleRoutes } from './notify/rules/routes';
import type { meRoutes } from './me/routes';
import type { projectRoutes } from './projects/routes';
import type { traceRoutes } from './traces/routes';
import type { vitalsRoutes } from './vitals/routes';
import type { sourcemapRoutes } from './sourcemaps/routes';

/**
 * Types of the route groups for Hono's typed client, `hc<Api>(baseUrl)`: the paths, parameters, bodies and answers of
 * each group come from the schemas its routes are declared with, so a renamed field breaks the build of a caller.
 * Per group rather than the whole app: the app mounts groups conditionally, and small types keep tsc fast.
 * Each client's base URL is where the group is mounted, e.g. `${server}/control-plane/projects`.
 */
export type ProjectsApi = ReturnType<typeof projectRoutes>;
export type MeApi = ReturnType<typeof meRoutes>;
export type IssuesApi = ReturnType<typeof issueRoutes>;
export type ChannelsApi = ReturnType<typeof channelRoutes>;
export type RulesApi = ReturnType<typeof ruleRoutes>;
export type SourcemapsApi = ReturnType<typeof sourcemapRoutes>;
export type TracesApi = ReturnType<typeof traceRoutes>;
export type VitalsApi = ReturnType<typeof vitalsRoutes>;
