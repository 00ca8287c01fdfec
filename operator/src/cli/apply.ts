import { isDeepStrictEqual } from 'node:util';
import { ApiException, type KubernetesObject } from '@kubernetes/client-node';
import type { RestClient } from './rest.js';
import { refOf, resourcePath } from './resources.js';

export type ApplyOutcome = 'created' | 'updated' | 'unchanged';

/** A failed request of an apply, with the verb that failed (for the message and the RBAC hint). */
export class ApplyFailure extends Error {
  override name = 'ApplyFailure';
  constructor(
    readonly verb: 'get' | 'create' | 'update',
    override readonly cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

type Json = Record<string, unknown>;

/**
 * Create-or-update of one rendered object, as `kubectl apply` does it for objects we own:
 *
 * - absent: created;
 * - present and every field we render already has our value (fields the API server or the operator added, such as
 *   defaults, the clusterIP or the webhook's caBundle, do not count): unchanged, nothing written;
 * - otherwise replaced with our fields, keeping what others own: the resourceVersion (a concurrent change makes the
 *   write fail with 409 and it is retried from a fresh read), labels and annotations we do not set, the Service's
 *   cluster IPs, and the caBundle the operator patched into the webhook configuration (dropping it would leave the
 *   webhook failing TLS until the operator's next check);
 * - the webhook TLS Secret is only ever created: its content is the operator's.
 */
export async function applyObject(
  rest: RestClient,
  desired: KubernetesObject,
  options: { dryRun: boolean },
): Promise<ApplyOutcome> {
  const { path } = resourcePath(refOf(desired));
  for (let attempt = 1; ; attempt++) {
    let live: Json | undefined;
    try {
      live = await rest.find<Json>(path);
    } catch (error) {
      throw new ApplyFailure('get', error);
    }
    try {
      if (!live) {
        await rest.post(resourcePath({ ...refOf(desired), name: undefined }).path, desired, options);
        return 'created';
      }
      if (desired.kind === 'Secret' || contains(live, desired)) return 'unchanged';
      await rest.put(path, merged(live, desired as unknown as Json), options);
      return 'updated';
    } catch (error) {
      // 409: someone created or changed it since we read it; decide again from a fresh read.
      if (attempt < 3 && error instanceof ApiException && error.code === 409) continue;
      throw new ApplyFailure(live ? 'update' : 'create', error);
    }
  }
}

/** Whether `live` has every field of `desired` with the same value (arrays element by element, same length). */
export function contains(live: unknown, desired: unknown): boolean {
  if (Array.isArray(desired)) {
    return (
      Array.isArray(live) &&
      live.length === desired.length &&
      desired.every((item, index) => contains(live[index], item))
    );
  }
  if (typeof desired === 'object' && desired !== null) {
    if (typeof live !== 'object' || live === null || Array.isArray(live)) return false;
    return Object.entries(desired).every(([key, value]) => contains((live as Json)[key], value));
  }
  return isDeepStrictEqual(live, desired);
}

function merged(live: Json, desired: Json): Json {
  const liveMeta = (live.metadata ?? {}) as Json;
  const desiredMeta = (desired.metadata ?? {}) as Json;
  const result: Json = {
    ...desired,
    metadata: {
      ...desiredMeta,
      resourceVersion: liveMeta.resourceVersion,
      labels: { ...(liveMeta.labels as Json | undefined), ...(desiredMeta.labels as Json | undefined) },
      annotations: { ...(liveMeta.annotations as Json | undefined), ...(desiredMeta.annotations as Json | undefined) },
    },
  };
  if (desired.kind === 'Service') {
    const liveSpec = (live.spec ?? {}) as Json;
    const keep = Object.fromEntries(
      ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy']
        .filter((key) => key in liveSpec)
        .map((key) => [key, liveSpec[key]]),
    );
    result.spec = { ...keep, ...(desired.spec as Json) };
  }
  if (desired.kind === 'MutatingWebhookConfiguration') {
    const liveWebhooks = (live.webhooks ?? []) as Json[];
    result.webhooks = ((desired.webhooks ?? []) as Json[]).map((webhook) => {
      const caBundle = ((liveWebhooks.find((candidate) => candidate.name === webhook.name)?.clientConfig ?? {}) as Json)
        .caBundle;
      const clientConfig = webhook.clientConfig as Json;
      return caBundle === undefined || clientConfig.caBundle !== undefined
        ? webhook
        : { ...webhook, clientConfig: { ...clientConfig, caBundle } };
    });
  }
  return result;
}
