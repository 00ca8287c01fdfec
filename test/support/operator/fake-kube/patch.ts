/**
 * The PATCH body types kube-apiserver accepts. Strategic merge is applied as a JSON merge patch: the fake has no
 * per-field merge keys, so a strategic patch of a list (containers by name) replaces the list as merge-patch does —
 * svc-zero's own code sends merge or JSON patches only. Server-side apply is likewise a merge of the applied
 * configuration (no field ownership).
 */
import fastJsonPatch, { type Operation } from 'fast-json-patch';
import { parse as parseYaml } from 'yaml';
import { badRequest, StatusError, unsupportedMediaType } from './status.js';

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

const MEDIA_TYPES: Record<string, PatchType> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
};

export function patchTypeOf(contentType: string | undefined): PatchType {
  const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const type = MEDIA_TYPES[mediaType];
  if (!type) throw unsupportedMediaType(mediaType || '(none)');
  return type;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** RFC 7386: objects merge key by key, `null` removes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/** Parses the body for its patch type (YAML for apply, which JSON also is). */
export function parsePatchBody(type: PatchType, body: string): unknown {
  try {
    return type === 'apply' ? parseYaml(body) : JSON.parse(body);
  } catch (error) {
    throw badRequest(`error decoding patch: ${(error as Error).message}`);
  }
}

export function applyPatch(type: PatchType, current: Record<string, unknown>, patch: unknown): Record<string, unknown> {
  if (type !== 'json') {
    if (!isObject(patch)) throw badRequest('the patch must be a JSON object');
    return mergePatch(current, patch) as Record<string, unknown>;
  }
  if (!Array.isArray(patch)) throw badRequest('json patch must be an array of operations');
  try {
    return fastJsonPatch.applyPatch(structuredClone(current), patch as Operation[], true, false).newDocument;
  } catch (error) {
    if (error instanceof StatusError) throw error;
    // kube-apiserver answers an inapplicable JSON patch (failed `test`, missing path) with 422.
    throw new StatusError({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `the server rejected our request due to an error in our request: ${(error as Error).message.split('\n')[0]}`,
      reason: 'Invalid',
      code: 422,
    });
  }
}
