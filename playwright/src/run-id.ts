import { randomUUID } from 'node:crypto';
import { ciFromEnv } from './ci';

type Env = Record<string, string | undefined>;

/** What the server accepts as a run id: 1..128 characters of [A-Za-z0-9._:-]. */
const RUN_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Makes any text a valid run id: other characters become `-`, and it is cut to 128 characters. */
function sanitize(raw: string): string {
  return raw.replace(/[^A-Za-z0-9._:-]/g, '-').slice(0, 128);
}

/**
 * The run id every worker and the reporter agree on: `SVC_RUN_ID` when set, else the CI build's own id (GitHub
 * `GITHUB_RUN_ID-GITHUB_RUN_ATTEMPT`, GitLab `CI_PIPELINE_ID`, CircleCI `CIRCLE_WORKFLOW_ID`, Buildkite
 * `BUILDKITE_BUILD_ID`, Jenkins `BUILD_TAG`), so the shards of one build share a run; undefined otherwise.
 */
export function runIdFromEnv(env: Env): string | undefined {
  const raw = env.SVC_RUN_ID?.trim() || ciFromEnv(env).buildId;
  if (!raw) return undefined;
  return RUN_ID.test(raw) ? raw : sanitize(raw);
}

/**
 * The run id, made once when neither `SVC_RUN_ID` nor a CI build id is there: a UUID put into `process.env.SVC_RUN_ID`,
 * so the workers the runner starts afterwards inherit it. The reporter calls this in its constructor, before any worker.
 */
export function ensureRunId(env: NodeJS.ProcessEnv = process.env): string {
  const id = runIdFromEnv(env) ?? randomUUID();
  env.SVC_RUN_ID = id;
  return id;
}
