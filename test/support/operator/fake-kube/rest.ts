/**
 * What each REST verb does to stored objects, with kube-apiserver's rules: names and namespaces checked, uid,
 * creationTimestamp and generation kept by the server, `.status` only through the status subresource (for types that
 * have one), optimistic concurrency on `metadata.resourceVersion`, and no new resourceVersion for an update that
 * changes nothing.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { KubernetesObject } from '@kubernetes/client-node';
import { applyPatch, type PatchType } from './patch.js';
import { CRD_TYPE, groupVersionOf, NAMESPACE_TYPE, storageKey, type ResourceType } from './resources.js';
import { present, type Store } from './store.js';
import {
  alreadyExists,
  badRequest,
  conflict,
  invalid,
  namespaceNotFound,
  notFound,
  success,
  type Status,
} from './status.js';

export interface Scope {
  type: ResourceType;
  namespace?: string;
  name?: string;
  subresource?: string;
}

export interface WriteOptions {
  dryRun: boolean;
}

type Obj = KubernetesObject & Record<string, unknown>;

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** kube-apiserver's timestamps have whole seconds. */
const timestamp = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Everything but metadata and status: what `metadata.generation` counts changes of. */
function specOf(object: Obj): string {
  const { metadata: _metadata, status: _status, ...rest } = object;
  return JSON.stringify(rest);
}

const sameContent = (a: Obj, b: Obj) => {
  const strip = (object: Obj) =>
    JSON.stringify({ ...object, metadata: { ...object.metadata, resourceVersion: undefined } });
  return strip(a) === strip(b);
};

export class Rest {
  constructor(
    private readonly store: Store,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private body(scope: Scope, input: unknown): Obj {
    if (input === null || typeof input !== 'object' || Array.isArray(input))
      throw badRequest('the body of the request must be a JSON object');
    const object = input as Obj;
    const apiVersion = groupVersionOf(scope.type);
    if (object.apiVersion !== undefined && object.apiVersion !== apiVersion) {
      throw badRequest(
        `the API version in the data (${object.apiVersion}) does not match the expected API version (${apiVersion})`,
      );
    }
    if (object.kind !== undefined && object.kind !== scope.type.kind)
      throw badRequest(`the kind in the data (${object.kind}) does not match the expected kind (${scope.type.kind})`);
    const namespace = object.metadata?.namespace;
    if (scope.type.namespaced && namespace !== undefined && namespace !== '' && namespace !== scope.namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    return { ...object, apiVersion, kind: scope.type.kind, metadata: { ...object.metadata } };
  }

  private requireNamespace(scope: Scope): void {
    if (scope.type.namespaced && !this.store.get(NAMESPACE_TYPE, undefined, scope.namespace ?? ''))
      throw namespaceNotFound(scope.namespace ?? '');
  }

  /** Server-set fields of a new object, and the status a new object of its kind starts with. */
  private initialize(type: ResourceType, object: Obj, namespace: string | undefined, name: string): Obj {
    const { resourceVersion: _resourceVersion, generateName: _generateName, ...metadata } = object.metadata ?? {};
    const created: Obj = {
      ...object,
      metadata: {
        ...metadata,
        name,
        ...(type.namespaced ? { namespace } : {}),
        uid: randomUUID(),
        // client-node types it as Date (its deserializer makes one); stored objects hold the wire form, a string.
        creationTimestamp: timestamp(this.now()) as unknown as Date,
        ...(type.generation ? { generation: 1 } : {}),
      },
    };
    return defaults(type, created);
  }

  create(scope: Scope, input: unknown, options: WriteOptions): KubernetesObject {
    const object = this.body(scope, input);
    if (object.metadata?.resourceVersion)
      throw badRequest('resourceVersion should not be set on objects to be created');
    this.requireNamespace(scope);
    const generateName = object.metadata?.generateName;
    const name =
      object.metadata?.name || (generateName ? `${generateName}${randomBytes(3).toString('hex').slice(0, 5)}` : '');
    if (!name) throw invalid(scope.type, '', 'metadata.name', 'Required value: name or generateName is required');
    if (name.length > 253 || !DNS_SUBDOMAIN.test(name)) {
      throw invalid(
        scope.type,
        name,
        'metadata.name',
        `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
      );
    }
    if (this.store.get(scope.type, scope.namespace, name)) throw alreadyExists(scope.type, name);
    // A new object's status is the server's, not the client's, for types with a status subresource.
    const fresh = scope.type.status ? { ...object, status: undefined } : object;
    const created = this.initialize(scope.type, fresh, scope.namespace, name);
    return present(scope.type, options.dryRun ? created : this.store.write(scope.type, created));
  }

  replace(scope: Scope, input: unknown, options: WriteOptions): KubernetesObject {
    const object = this.body(scope, input);
    const name = scope.name ?? '';
    if (object.metadata?.name !== name)
      throw badRequest(
        `the name of the object (${object.metadata?.name ?? ''}) does not match the name on the URL (${name})`,
      );
    const existing = this.store.get(scope.type, scope.namespace, name) as Obj | undefined;
    if (!existing) throw notFound(scope.type, name);
    const expected = object.metadata?.resourceVersion;
    if (expected && expected !== existing.metadata?.resourceVersion) throw conflict(scope.type, name);
    return this.update(scope, existing, object, options);
  }

  patch(
    scope: Scope,
    patchType: PatchType,
    patch: unknown,
    options: WriteOptions & { fieldManager?: string },
  ): KubernetesObject {
    const name = scope.name ?? '';
    if (patchType === 'apply' && !options.fieldManager)
      throw badRequest('PATCH /apply requires fieldManager (fieldManager is required for apply patch)');
    const existing = this.store.get(scope.type, scope.namespace, name) as Obj | undefined;
    if (!existing) {
      // Server-side apply creates what does not exist yet; the other patch types need an object.
      if (patchType !== 'apply' || scope.subresource) throw notFound(scope.type, name);
      return this.create(scope, { ...(patch as object), metadata: { ...(patch as Obj).metadata, name } }, options);
    }
    const patched = applyPatch(patchType, existing, patch) as Obj;
    // A resourceVersion in the patch is a precondition, as on a real server.
    if (patched.metadata?.resourceVersion !== existing.metadata?.resourceVersion) throw conflict(scope.type, name);
    return this.update(scope, existing, this.body(scope, patched), options);
  }

  private update(scope: Scope, existing: Obj, object: Obj, options: WriteOptions): KubernetesObject {
    const { type } = scope;
    let next: Obj;
    if (scope.subresource === 'status') {
      next = { ...existing, status: object.status };
    } else {
      next = {
        ...object,
        metadata: {
          ...object.metadata,
          name: existing.metadata?.name,
          ...(type.namespaced ? { namespace: existing.metadata?.namespace } : {}),
          uid: existing.metadata?.uid,
          creationTimestamp: existing.metadata?.creationTimestamp,
          resourceVersion: existing.metadata?.resourceVersion,
          ...(type.generation ? { generation: existing.metadata?.generation } : {}),
        },
        ...(type.status ? { status: existing.status } : {}),
      };
      if (next.status === undefined) delete next.status;
      next = defaults(type, next);
    }
    if (type.generation && specOf(next) !== specOf(existing))
      next.metadata = { ...next.metadata, generation: (existing.metadata?.generation ?? 0) + 1 };
    if (sameContent(next, existing) || options.dryRun) return present(type, options.dryRun ? next : existing);
    return present(type, this.store.write(type, next));
  }

  delete(scope: Scope, options: WriteOptions): KubernetesObject | Status {
    const name = scope.name ?? '';
    const existing = this.store.get(scope.type, scope.namespace, name);
    if (!existing) throw notFound(scope.type, name);
    const deleted = options.dryRun ? existing : this.store.delete(scope.type, scope.namespace, name);
    // Pods answer with the object (graceful deletion); most other types with a Success Status.
    if (scope.type.plural === 'pods' && !scope.type.group) return present(scope.type, deleted ?? existing);
    return success(scope.type, name, existing.metadata?.uid);
  }

  /** FakeKube.put: stores the object as given (status included), keeping uid/creationTimestamp of an existing one. */
  seed(type: ResourceType, input: KubernetesObject): KubernetesObject {
    const object = { ...structuredClone(input), apiVersion: groupVersionOf(type), kind: type.kind } as Obj;
    const name = object.metadata?.name;
    if (!name) throw new Error(`put: ${type.kind} without metadata.name`);
    const namespace = type.namespaced ? object.metadata?.namespace || 'default' : undefined;
    const existing = this.store.get(type, namespace, name) as Obj | undefined;
    if (!existing) {
      const status = object.status;
      const created = this.initialize(type, object, namespace, name);
      return present(type, this.store.write(type, status === undefined ? created : { ...created, status }));
    }
    let next: Obj = {
      ...object,
      metadata: {
        ...object.metadata,
        ...(type.namespaced ? { namespace } : {}),
        uid: existing.metadata?.uid,
        creationTimestamp: existing.metadata?.creationTimestamp,
        ...(type.generation ? { generation: existing.metadata?.generation } : {}),
      },
    };
    next = defaults(type, next);
    if (type.generation && specOf(next) !== specOf(existing))
      next.metadata = { ...next.metadata, generation: (existing.metadata?.generation ?? 0) + 1 };
    return present(type, this.store.write(type, next));
  }
}

/** What kube-apiserver fills in for some kinds: a namespace's name label and phase, a pod's phase, a CRD's conditions. */
function defaults(type: ResourceType, object: Obj): Obj {
  const name = object.metadata?.name ?? '';
  if (storageKey(type) === storageKey(NAMESPACE_TYPE)) {
    return {
      ...object,
      metadata: { ...object.metadata, labels: { ...object.metadata?.labels, 'kubernetes.io/metadata.name': name } },
      spec: (object.spec as object | undefined) ?? { finalizers: ['kubernetes'] },
      status: (object.status as object | undefined) ?? { phase: 'Active' },
    };
  }
  if (type.plural === 'pods' && !type.group && object.status === undefined)
    return { ...object, status: { phase: 'Pending' } };
  if (storageKey(type) === storageKey(CRD_TYPE) && object.status === undefined) {
    const names = (object.spec as { names?: unknown } | undefined)?.names ?? {};
    const condition = (kind: string, reason: string) => ({
      type: kind,
      status: 'True',
      reason,
      message: '',
      lastTransitionTime: object.metadata?.creationTimestamp,
    });
    return {
      ...object,
      status: {
        acceptedNames: names,
        conditions: [condition('NamesAccepted', 'NoConflicts'), condition('Established', 'InitialNamesAccepted')],
        storedVersions: [],
      },
    };
  }
  return object;
}
