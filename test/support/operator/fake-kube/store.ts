/**
 * The fake's etcd and watch cache: objects by resource, one cluster-wide resourceVersion counter, the event history
 * watches resume from, and the open watches. Stored objects are never changed in place (every write stores a new
 * object), so the history can hold them as they were.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import {
  BUILT_IN_TYPES,
  CRD_TYPE,
  groupVersionOf,
  NAMESPACE_TYPE,
  storageKey,
  typesOfCrd,
  type ResourceType,
} from './resources.js';
import type { Selector } from './selectors.js';
import { expired, type StatusError } from './status.js';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

interface StoredEvent {
  rv: number;
  key: string;
  type: EventType;
  /** The object before a MODIFIED event, to tell a watch with a selector that an object entered or left it. */
  old?: KubernetesObject;
  object: KubernetesObject;
}

export interface WatchTarget {
  type: ResourceType;
  namespace: string | undefined;
  selector: Selector;
}

interface Watcher extends WatchTarget {
  send(type: EventType, object: KubernetesObject): void;
  close(): void;
}

const idOf = (namespace: string | undefined, name: string) => `${namespace ?? ''}/${name}`;

/** The object as served in the type's group version (custom resources may be requested in any served version). */
export function present(type: ResourceType, object: KubernetesObject): KubernetesObject {
  return { ...structuredClone(object), apiVersion: groupVersionOf(type), kind: type.kind };
}

export class Store {
  /** The last resourceVersion handed out; kube-apiserver's are opaque strings, these are increasing integers. */
  revision = 1000;
  /** Watches from a resourceVersion older than this get 410 Expired. */
  oldestWatchable = 1000;
  private served: ResourceType[] = [...BUILT_IN_TYPES];
  private readonly buckets = new Map<string, Map<string, KubernetesObject>>();
  private history: StoredEvent[] = [];
  private readonly watchers = new Set<Watcher>();

  types(): readonly ResourceType[] {
    return this.served;
  }

  typeByPlural(group: string, version: string, plural: string): ResourceType | undefined {
    return this.served.find((type) => type.group === group && type.version === version && type.plural === plural);
  }

  typeByKind(group: string, version: string, kind: string): ResourceType | undefined {
    return this.served.find((type) => type.group === group && type.version === version && type.kind === kind);
  }

  get(type: ResourceType, namespace: string | undefined, name: string): KubernetesObject | undefined {
    return this.buckets.get(storageKey(type))?.get(idOf(type.namespaced ? namespace : undefined, name));
  }

  /** In key order (namespace, then name), as etcd lists them. */
  list(type: ResourceType, namespace?: string): KubernetesObject[] {
    const bucket = this.buckets.get(storageKey(type));
    if (!bucket) return [];
    return [...bucket.entries()]
      .filter(([, object]) => namespace === undefined || object.metadata?.namespace === namespace)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, object]) => object);
  }

  /** Stores `object` (its metadata complete but for resourceVersion) and tells the watches. */
  write(type: ResourceType, object: KubernetesObject): KubernetesObject {
    const metadata = object.metadata ?? {};
    const id = idOf(type.namespaced ? metadata.namespace : undefined, metadata.name ?? '');
    const key = storageKey(type);
    const bucket = this.buckets.get(key) ?? new Map<string, KubernetesObject>();
    this.buckets.set(key, bucket);
    const old = bucket.get(id);
    this.revision += 1;
    const stored = { ...object, metadata: { ...metadata, resourceVersion: String(this.revision) } };
    bucket.set(id, stored);
    this.record({ rv: this.revision, key, type: old ? 'MODIFIED' : 'ADDED', ...(old ? { old } : {}), object: stored });
    if (key === storageKey(CRD_TYPE)) this.refreshTypes();
    return stored;
  }

  /** Deletes an object (and what lives in it: a namespace's objects, a CRD's custom resources). */
  delete(type: ResourceType, namespace: string | undefined, name: string): KubernetesObject | undefined {
    const key = storageKey(type);
    const id = idOf(type.namespaced ? namespace : undefined, name);
    const object = this.buckets.get(key)?.get(id);
    if (!object) return undefined;
    if (key === storageKey(NAMESPACE_TYPE)) this.deleteNamespaceContents(name);
    if (key === storageKey(CRD_TYPE)) for (const served of typesOfCrd(object).slice(0, 1)) this.deleteAll(served);
    this.buckets.get(key)?.delete(id);
    this.revision += 1;
    const deleted = { ...object, metadata: { ...object.metadata, resourceVersion: String(this.revision) } };
    this.record({ rv: this.revision, key, type: 'DELETED', object: deleted });
    if (key === storageKey(CRD_TYPE)) this.refreshTypes();
    return deleted;
  }

  private deleteNamespaceContents(namespace: string): void {
    for (const type of this.uniqueStoredTypes()) {
      if (!type.namespaced) continue;
      for (const object of this.list(type, namespace)) this.delete(type, namespace, object.metadata?.name ?? '');
    }
  }

  private deleteAll(type: ResourceType): void {
    for (const object of this.list(type)) this.delete(type, object.metadata?.namespace, object.metadata?.name ?? '');
  }

  /** One served type per storage bucket. */
  private uniqueStoredTypes(): ResourceType[] {
    const seen = new Map<string, ResourceType>();
    for (const type of this.served) if (!seen.has(storageKey(type))) seen.set(storageKey(type), type);
    return [...seen.values()];
  }

  private refreshTypes(): void {
    const crds = this.list(CRD_TYPE);
    this.served = [...BUILT_IN_TYPES, ...crds.flatMap(typesOfCrd)];
    // A watch on a resource that is no longer served ends, as kube-apiserver ends it when a CRD goes away.
    for (const watcher of [...this.watchers]) {
      if (this.typeByPlural(watcher.type.group, watcher.type.version, watcher.type.plural)) continue;
      this.watchers.delete(watcher);
      watcher.close();
    }
  }

  private record(event: StoredEvent): void {
    this.history.push(event);
    for (const watcher of this.watchers) if (storageKey(watcher.type) === event.key) deliver(watcher, event);
  }

  /**
   * Starts a watch: from `resourceVersion` (events after it), or with synthetic ADDED events for what exists now when
   * it is absent or "0". A resourceVersion older than the retained history is the 410 the caller reports.
   */
  watch(
    target: WatchTarget,
    resourceVersion: number | undefined,
    send: Watcher['send'],
    close: () => void,
  ): { stop(): void } | StatusError {
    const watcher: Watcher = { ...target, send, close };
    if (resourceVersion === undefined || resourceVersion === 0) {
      for (const object of this.list(target.type, target.type.namespaced ? target.namespace : undefined)) {
        if (target.selector(object)) send('ADDED', object);
      }
    } else {
      if (resourceVersion < this.oldestWatchable) return expired(resourceVersion, this.oldestWatchable);
      const key = storageKey(target.type);
      for (const event of this.history) if (event.rv > resourceVersion && event.key === key) deliver(watcher, event);
    }
    this.watchers.add(watcher);
    return { stop: () => this.watchers.delete(watcher) };
  }

  /** Forgets the event history: watches from any resourceVersion before the current one get 410 Expired. */
  compact(): void {
    this.history = [];
    this.oldestWatchable = this.revision;
  }

  /** Ends every open watch (the client sees its stream close, as after an apiserver restart or an idle timeout). */
  closeWatches(): void {
    for (const watcher of [...this.watchers]) watcher.close();
    this.watchers.clear();
  }

  openWatches(): WatchTarget[] {
    return [...this.watchers].map(({ type, namespace, selector }) => ({ type, namespace, selector }));
  }
}

/** Sends `event` to `watcher` as kube-apiserver would: scoped to its namespace, and selectors turning MODIFIED into ADDED/DELETED. */
function deliver(watcher: Watcher, event: StoredEvent): void {
  const inScope = (object: KubernetesObject | undefined): boolean =>
    object !== undefined &&
    (watcher.namespace === undefined || !watcher.type.namespaced || object.metadata?.namespace === watcher.namespace) &&
    watcher.selector(object);
  const now = inScope(event.object);
  if (event.type !== 'MODIFIED') {
    if (now) watcher.send(event.type, event.object);
    return;
  }
  const before = inScope(event.old);
  if (before && now) watcher.send('MODIFIED', event.object);
  else if (now) watcher.send('ADDED', event.object);
  else if (before) watcher.send('DELETED', event.object);
}
