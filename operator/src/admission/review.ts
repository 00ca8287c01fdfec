/**
 * admission.k8s.io/v1 AdmissionReview: tolerant decoding of what the API server sends, and the response it expects.
 * Decoding never throws: whatever cannot be read becomes a reason to allow the pod unchanged (a pod is never blocked).
 */
import type { V1Pod } from '@kubernetes/client-node';

export const ADMISSION_API_VERSION = 'admission.k8s.io/v1';
export const ADMISSION_KIND = 'AdmissionReview';

/** The part of a pod CREATE request the webhook acts on. */
export interface PodCreation {
  uid: string;
  namespace: string;
  pod: V1Pod;
  dryRun: boolean;
}

/** Either a pod to consider, or why the request is answered `allowed` with no patch (and the uid, when readable). */
export type DecodedReview = { ok: true; request: PodCreation } | { ok: false; uid: string; reason: string };

export interface AdmissionReviewResponse {
  apiVersion: typeof ADMISSION_API_VERSION;
  kind: typeof ADMISSION_KIND;
  response: { uid: string; allowed: true; patchType?: 'JSONPatch'; patch?: string; warnings?: string[] };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The request's uid if it can be read at all, so even a rejected review is answered with the uid it came with. */
function uidOf(review: unknown): string {
  if (!isObject(review) || !isObject(review.request)) return '';
  return typeof review.request.uid === 'string' ? review.request.uid : '';
}

export function decodeReview(body: string): DecodedReview {
  let review: unknown;
  try {
    review = JSON.parse(body);
  } catch {
    return { ok: false, uid: '', reason: 'body is not JSON' };
  }
  const uid = uidOf(review);
  if (!isObject(review)) return { ok: false, uid, reason: 'body is not a JSON object' };
  if (review.apiVersion !== ADMISSION_API_VERSION || review.kind !== ADMISSION_KIND) {
    return {
      ok: false,
      uid,
      reason: `not an ${ADMISSION_API_VERSION} ${ADMISSION_KIND} (apiVersion ${JSON.stringify(review.apiVersion)}, kind ${JSON.stringify(review.kind)})`,
    };
  }
  const request = review.request;
  if (!isObject(request)) return { ok: false, uid, reason: 'AdmissionReview has no request' };
  if (uid === '') return { ok: false, uid, reason: 'request has no uid' };
  const kind = isObject(request.kind) ? request.kind : {};
  const resource = isObject(request.resource) ? request.resource : {};
  if (
    kind.group !== '' ||
    kind.version !== 'v1' ||
    kind.kind !== 'Pod' ||
    resource.resource !== 'pods' ||
    (request.subResource ?? '') !== ''
  ) {
    return {
      ok: false,
      uid,
      reason: `not a pod (kind ${JSON.stringify(kind)}, resource ${JSON.stringify(resource)}, subResource ${JSON.stringify(request.subResource ?? '')})`,
    };
  }
  if (request.operation !== 'CREATE')
    return { ok: false, uid, reason: `operation ${JSON.stringify(request.operation)} is not CREATE` };
  const pod = request.object;
  if (!isObject(pod)) return { ok: false, uid, reason: 'request has no object' };
  if (
    !isObject(pod.spec) ||
    !Array.isArray(pod.spec.containers) ||
    (pod.metadata !== undefined && !isObject(pod.metadata))
  ) {
    return { ok: false, uid, reason: 'object is not a pod (no spec.containers)' };
  }
  // Pods made by controllers arrive without metadata.namespace; the request names it.
  const metadata = isObject(pod.metadata) ? pod.metadata : {};
  const namespace =
    typeof request.namespace === 'string' && request.namespace !== '' ? request.namespace : metadata.namespace;
  if (typeof namespace !== 'string' || namespace === '')
    return { ok: false, uid, reason: 'request names no namespace' };
  return { ok: true, request: { uid, namespace, pod: pod as V1Pod, dryRun: request.dryRun === true } };
}

/** The answer: always allowed; with the JSON Patch (base64) only when there is something to change. */
export function allowResponse(uid: string, patch?: readonly unknown[], warnings?: string[]): AdmissionReviewResponse {
  const response: AdmissionReviewResponse['response'] = { uid, allowed: true };
  if (patch !== undefined && patch.length > 0) {
    response.patchType = 'JSONPatch';
    response.patch = Buffer.from(JSON.stringify(patch), 'utf8').toString('base64');
  }
  if (warnings !== undefined && warnings.length > 0) response.warnings = warnings;
  return { apiVersion: ADMISSION_API_VERSION, kind: ADMISSION_KIND, response };
}

/** The pod's name for logs: its name, or its generateName prefix (controllers' pods have no name yet). */
export function podLabel(pod: V1Pod): string {
  return pod.metadata?.name || (pod.metadata?.generateName ? `${pod.metadata.generateName}*` : '(unnamed)');
}
