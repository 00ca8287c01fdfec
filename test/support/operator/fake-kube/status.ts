/**
 * kube-apiserver's error bodies: a `Status` object whose `reason` and `code` clients branch on, and whose `message`
 * reads exactly like the real server's, so error descriptions written against the fake hold against a cluster.
 */
import type { ResourceType } from './resources.js';

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    uid?: string;
    causes?: { reason: string; message: string; field: string }[];
  };
  code: number;
}

/** An error the request handlers throw; the router answers it with its Status body. */
export class StatusError extends Error {
  constructor(readonly status: Status) {
    super(status.message);
  }
}

function failure(code: number, reason: string, message: string, details?: Status['details']): StatusError {
  return new StatusError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    ...(details ? { details } : {}),
    code,
  });
}

/** `pods` for the core group, `svcinstrumentations.svc.io` otherwise: how kube-apiserver names a resource in messages. */
export function qualifiedResource(type: ResourceType): string {
  return type.group ? `${type.plural}.${type.group}` : type.plural;
}

function details(type: ResourceType, name?: string): Status['details'] {
  return { ...(name !== undefined ? { name } : {}), ...(type.group ? { group: type.group } : {}), kind: type.plural };
}

export const notFound = (type: ResourceType, name: string) =>
  failure(404, 'NotFound', `${qualifiedResource(type)} "${name}" not found`, details(type, name));

export const namespaceNotFound = (name: string) =>
  failure(404, 'NotFound', `namespaces "${name}" not found`, { name, kind: 'namespaces' });

export const alreadyExists = (type: ResourceType, name: string) =>
  failure(409, 'AlreadyExists', `${qualifiedResource(type)} "${name}" already exists`, details(type, name));

export const conflict = (type: ResourceType, name: string) =>
  failure(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedResource(type)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    details(type, name),
  );

export const invalid = (type: ResourceType, name: string, field: string, message: string) =>
  failure(422, 'Invalid', `${type.kind} "${name}" is invalid: ${field}: ${message}`, {
    ...details(type, name),
    kind: type.kind,
    causes: [{ reason: 'FieldValueInvalid', message, field }],
  });

export const badRequest = (message: string) => failure(400, 'BadRequest', message);

export const methodNotAllowed = () =>
  failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');

export const unsupportedMediaType = (contentType: string) =>
  failure(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml (got ${contentType})`,
  );

export const unauthorized = () => failure(401, 'Unauthorized', 'Unauthorized');

/**
 * The 403 kube-apiserver's RBAC authorizer gives, e.g. `secrets "k" is forbidden: User "u" cannot get resource
 * "secrets" in API group "" in the namespace "shop"`.
 */
export function forbidden(input: {
  user: string;
  verb: string;
  type: ResourceType;
  subresource?: string;
  namespace?: string;
  name?: string;
}): StatusError {
  const { user, verb, type, subresource, namespace, name } = input;
  const resource = subresource ? `${type.plural}/${subresource}` : type.plural;
  const subject = name ? `${qualifiedResource(type)} "${name}"` : qualifiedResource(type);
  const scope = namespace ? `in the namespace "${namespace}"` : 'at the cluster scope';
  return failure(
    403,
    'Forbidden',
    `${subject} is forbidden: User "${user}" cannot ${verb} resource "${resource}" in API group "${type.group}" ${scope}`,
    details(type, name),
  );
}

/** The watch event a too-old resourceVersion gets (the watch cache answers it as an event, not as an HTTP error). */
export const expired = (requested: number, oldest: number) =>
  failure(410, 'Expired', `too old resource version: ${requested} (${oldest})`);

export function success(type: ResourceType, name: string, uid: string | undefined): Status {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { ...details(type, name), ...(uid ? { uid } : {}) },
    code: 200,
  };
}
