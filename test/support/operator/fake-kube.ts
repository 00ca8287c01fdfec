/**
 * An in-process fake Kubernetes API server on loopback, speaking kube-apiserver's REST and watch wire format, for
 * the operator's controller and CLI tests (no real cluster runs on the development machines). Real clients
 * (@kubernetes/client-node's typed APIs, KubernetesObjectApi with discovery, Watch, informers) talk to it unchanged.
 *
 * Served: discovery; core v1 namespaces, pods, secrets, services, serviceaccounts, configmaps; apps/v1 workloads;
 * admissionregistration, apiextensions, rbac; `authorization.k8s.io/v1 selfsubjectaccessreviews`; and every
 * custom resource whose CRD is stored (svc.io/v1alpha1 svcinstrumentations while `svcinstrumentations.svc.io` exists,
 * a plain-text 404 otherwise, as a cluster without the CRD answers). Bearer token required.
 *
 * Not modelled: admission webhooks, controllers (no ReplicaSets or pods appear by themselves), field ownership,
 * strategic-merge list semantics (applied as a merge patch), graceful deletion and finalizers.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { stringify as toYaml } from 'yaml';
import { CRD_GROUP, CRD_KIND, CRD_PLURAL, CRD_SHORT_NAME, CRD_VERSION } from '../../../operator/src/markers.js';
import { parsePatchBody, patchTypeOf } from './fake-kube/patch.js';
import { discovery, groupVersionOf, splitApiVersion, type ResourceType } from './fake-kube/resources.js';
import { Rest, type Scope } from './fake-kube/rest.js';
import { parseFieldSelector, parseLabelSelector } from './fake-kube/selectors.js';
import {
  badRequest,
  forbidden,
  methodNotAllowed,
  notFound,
  StatusError,
  unauthorized,
  type Status,
} from './fake-kube/status.js';
import { present, Store } from './fake-kube/store.js';

export interface FakeKubeRequest {
  method: string;
  /** The URL path without the query, e.g. `/api/v1/namespaces/shop/secrets`. */
  path: string;
  /** The query string without `?` ('' when none), e.g. `watch=true&resourceVersion=1004`. */
  query: string;
  contentType?: string;
}

export interface ForbidRule {
  /** get, list, watch, create, update, patch, delete, deletecollection, or `*`. */
  verb: string;
  /** Plural resource (`secrets`), optionally qualified (`svcinstrumentations.svc.io`) or a subresource (`svcinstrumentations/status`), or `*`. */
  resource: string;
  /** Only in this namespace (and so also cluster-wide requests for the resource); every namespace when absent. */
  namespace?: string;
}

export interface FakeKube {
  /** http://127.0.0.1:<port> */
  url: string;
  /** A kubeconfig file (token auth, insecure-skip-tls-verify for plain HTTP) pointing at url, in a temp dir. */
  kubeconfigPath: string;
  /** The bearer token the server accepts. */
  token: string;
  kubeConfig(): KubeConfig;
  /** Seeds or replaces an object directly, status included (bumps resourceVersion, emits watch events). */
  put(obj: KubernetesObject): KubernetesObject;
  get(apiVersion: string, kind: string, namespace: string | undefined, name: string): KubernetesObject | undefined;
  list(apiVersion: string, kind: string, namespace?: string): KubernetesObject[];
  /** Deletes an object (a namespace with its contents, a CRD with its custom resources); no-op when absent. */
  remove(apiVersion: string, kind: string, namespace: string | undefined, name: string): void;
  /** Denies matching requests with a 403 Status, as RBAC would; also makes SelfSubjectAccessReviews answer not allowed. */
  forbid(rule: ForbidRule): void;
  /** Answers matching requests (all when no match) only after `ms`; `delay(0)` without a match removes all delays. */
  delay(ms: number, match?: (method: string, path: string) => boolean): void;
  /** Every request received, in order. */
  requests: FakeKubeRequest[];
  /** Ends every open watch stream, as an apiserver restart or a load balancer's idle timeout does. */
  dropWatches(): void;
  /** Forgets the watch history: a watch resuming from a resourceVersion older than the current one gets 410. */
  compact(): void;
  /**
   * How a watch from a too-old resourceVersion hears it: `event` (default) is kube-apiserver's watch cache — HTTP 200
   * and one `ERROR` event carrying a 410 Expired Status; `status` is an HTTP 410 response with the Status body.
   */
  expiredWatch: 'event' | 'status';
  /** Sends a BOOKMARK event now to every watch opened with allowWatchBookmarks=true. */
  bookmark(): void;
  /** The open watches, e.g. `{ resource: 'pods', namespace: undefined }` for a cluster-wide pod watch. */
  watches(): { apiVersion: string; resource: string; namespace?: string }[];
  close(): Promise<void>;
}

export interface FakeKubeOptions {
  /** Whether the `svcinstrumentations.svc.io` CRD exists at start (default true). */
  crdInstalled?: boolean;
  /** Interval of BOOKMARK events on watches that allow them (default 60 s, as kube-apiserver's order of magnitude). */
  bookmarkIntervalMs?: number;
  /** The user 403 messages name. */
  user?: string;
}

/** The CRD the fake installs (`crdInstalled`), enough for the API surface; the operator's manifest has the full schema. */
export function svcInstrumentationCrd(): KubernetesObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${CRD_PLURAL}.${CRD_GROUP}` },
    spec: {
      group: CRD_GROUP,
      scope: 'Namespaced',
      names: {
        plural: CRD_PLURAL,
        singular: CRD_KIND.toLowerCase(),
        kind: CRD_KIND,
        listKind: `${CRD_KIND}List`,
        shortNames: [CRD_SHORT_NAME],
      },
      versions: [
        {
          name: CRD_VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  } as KubernetesObject;
}

type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

interface ResourceRequest extends Scope {
  verb: Verb;
}

function sendJson(res: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function sendStatus(res: ServerResponse, status: Status): void {
  sendJson(res, status.code, status);
}

/** What kube-apiserver answers for a path nothing serves (an unknown group, version, resource or subresource). */
function pageNotFound(res: ServerResponse): void {
  res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end('404 page not found\n');
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw badRequest(`error decoding request body: ${(error as Error).message}`);
  }
}

export async function startFakeKube(options: FakeKubeOptions = {}): Promise<FakeKube> {
  const store = new Store();
  const rest = new Rest(store);
  const token = randomBytes(16).toString('hex');
  const user = options.user ?? 'fake-kube-user';
  const bookmarkIntervalMs = options.bookmarkIntervalMs ?? 60_000;
  const forbidRules: ForbidRule[] = [];
  const delays: { ms: number; match?: (method: string, path: string) => boolean }[] = [];
  const bookmarkers = new Set<() => void>();
  const dir = mkdtempSync(join(tmpdir(), 'fake-kube-'));
  const kubeconfigPath = join(dir, 'kubeconfig');

  const typeOf = (apiVersion: string, kind: string): ResourceType | undefined => {
    const { group, version } = splitApiVersion(apiVersion);
    return store.typeByKind(group, version, kind);
  };

  const isForbidden = (
    verb: string,
    type: ResourceType,
    subresource: string | undefined,
    namespace: string | undefined,
  ): boolean =>
    forbidRules.some((rule) => {
      const resource = subresource ? `${type.plural}/${subresource}` : type.plural;
      const names = [
        resource,
        type.group ? `${type.plural}.${type.group}${subresource ? `/${subresource}` : ''}` : resource,
      ];
      const verbMatches = rule.verb === '*' || rule.verb === verb;
      const resourceMatches = rule.resource === '*' || names.includes(rule.resource);
      // A namespace's denial also denies the cluster-wide request, which needs the permission everywhere.
      const namespaceMatches =
        rule.namespace === undefined || rule.namespace === namespace || (type.namespaced && namespace === undefined);
      return verbMatches && resourceMatches && namespaceMatches;
    });

  function resolve(
    method: string,
    group: string,
    version: string,
    rest: string[],
    query: URLSearchParams,
  ): ResourceRequest | 'not-found' | 'not-allowed' {
    let scope: Scope | undefined;
    if (rest[0] === 'namespaces' && rest.length >= 3) {
      const type = store.typeByPlural(group, version, rest[2] ?? '');
      if (type?.namespaced)
        scope = {
          type,
          namespace: rest[1],
          ...(rest[3] ? { name: rest[3] } : {}),
          ...(rest[4] ? { subresource: rest[4] } : {}),
        };
    }
    if (!scope) {
      const type = store.typeByPlural(group, version, rest[0] ?? '');
      if (!type) return 'not-found';
      scope = { type, ...(rest[1] ? { name: rest[1] } : {}), ...(rest[2] ? { subresource: rest[2] } : {}) };
      // A namespaced type's named object needs its namespace in the path.
      if (type.namespaced && scope.name) return 'not-found';
    }
    if (rest.length > (scope.namespace !== undefined ? 5 : 3)) return 'not-found';
    if (scope.subresource && (scope.subresource !== 'status' || !scope.type.status)) return 'not-found';
    const watch = query.get('watch') === 'true' || query.get('watch') === '1';
    let verb: Verb;
    switch (method) {
      case 'GET':
        verb = scope.name ? 'get' : watch ? 'watch' : 'list';
        break;
      case 'POST':
        if (scope.name) return 'not-allowed';
        verb = 'create';
        break;
      case 'PUT':
        if (!scope.name) return 'not-allowed';
        verb = 'update';
        break;
      case 'PATCH':
        if (!scope.name) return 'not-allowed';
        verb = 'patch';
        break;
      case 'DELETE':
        verb = scope.name ? 'delete' : 'deletecollection';
        break;
      default:
        return 'not-allowed';
    }
    if (!scope.type.verbs.includes(verb)) return 'not-allowed';
    return { ...scope, verb };
  }

  function list(req: ResourceRequest, query: URLSearchParams): unknown {
    const labels = parseLabelSelector(query.get('labelSelector'));
    const fields = parseFieldSelector(query.get('fieldSelector'));
    const all = store.list(req.type, req.namespace).filter((object) => labels(object) && fields(object));
    const limit = Number(query.get('limit') ?? 0);
    const offset = query.get('continue')
      ? Number(Buffer.from(query.get('continue') ?? '', 'base64url').toString('utf8'))
      : 0;
    const page = limit > 0 ? all.slice(offset, offset + limit) : all.slice(offset);
    const next =
      limit > 0 && offset + limit < all.length ? Buffer.from(String(offset + limit)).toString('base64url') : undefined;
    const items = page.map((object) => {
      const item = present(req.type, object);
      if (!req.type.builtIn) return item;
      // kube-apiserver leaves kind and apiVersion off the items of built-in lists.
      const { kind: _kind, apiVersion: _apiVersion, ...rest } = item;
      return rest;
    });
    return {
      kind: req.type.listKind,
      apiVersion: groupVersionOf(req.type),
      metadata: {
        resourceVersion: String(store.revision),
        ...(next ? { continue: next, remainingItemCount: all.length - offset - limit } : {}),
      },
      items,
    };
  }

  function watch(req: ResourceRequest, query: URLSearchParams, res: ServerResponse): void {
    const labels = parseLabelSelector(query.get('labelSelector'));
    const fields = parseFieldSelector(query.get('fieldSelector'));
    const rvText = query.get('resourceVersion');
    const resourceVersion = rvText ? Number(rvText) : undefined;
    if (resourceVersion !== undefined && !Number.isInteger(resourceVersion))
      throw badRequest(`invalid resource version: ${rvText}`);
    // A watch ended by the server (dropWatches, a CRD deleted) may still be in the store's list for a moment.
    const write = (line: unknown) => {
      if (!res.writableEnded) res.write(`${JSON.stringify(line)}\n`);
    };
    let started = false;
    const start = () => {
      if (started) return;
      started = true;
      res.writeHead(200, {
        'Content-Type': 'application/json',
        'Transfer-Encoding': 'chunked',
        'Cache-Control': 'no-cache, private',
      });
    };
    const timers: NodeJS.Timeout[] = [];
    const finish = () => {
      for (const timer of timers) clearTimeout(timer);
      bookmarkers.delete(bookmark);
      if (!res.writableEnded) res.end();
    };
    const bookmark = () =>
      write({
        type: 'BOOKMARK',
        object: {
          kind: req.type.kind,
          apiVersion: groupVersionOf(req.type),
          metadata: { resourceVersion: String(store.revision) },
        },
      });
    const outcome = store.watch(
      { type: req.type, namespace: req.namespace, selector: (object) => labels(object) && fields(object) },
      resourceVersion,
      (type, object) => {
        start();
        write({ type, object: present(req.type, object) });
      },
      finish,
    );
    if (outcome instanceof StatusError) {
      if (fake.expiredWatch === 'status') throw outcome;
      start();
      write({ type: 'ERROR', object: outcome.status });
      res.end();
      return;
    }
    start();
    res.flushHeaders();
    res.on('close', () => {
      outcome.stop();
      finish();
    });
    if (query.get('allowWatchBookmarks') === 'true') {
      bookmarkers.add(bookmark);
      const tick = () => {
        bookmark();
        timers.push(setTimeout(tick, bookmarkIntervalMs).unref());
      };
      timers.push(setTimeout(tick, bookmarkIntervalMs).unref());
    }
    const timeoutSeconds = Number(query.get('timeoutSeconds') ?? 0);
    if (timeoutSeconds > 0) timers.push(setTimeout(finish, timeoutSeconds * 1000).unref());
  }

  function accessReview(body: unknown): unknown {
    const review = (body ?? {}) as {
      spec?: {
        resourceAttributes?: {
          namespace?: string;
          verb?: string;
          group?: string;
          resource?: string;
          subresource?: string;
        };
      };
    };
    const attributes = review.spec?.resourceAttributes;
    let allowed = true;
    if (attributes?.resource) {
      const candidates = store
        .types()
        .filter((type) => type.plural === attributes.resource && type.group === (attributes.group ?? ''));
      const type = candidates[0];
      allowed =
        !type ||
        !isForbidden(
          attributes.verb ?? '',
          type,
          attributes.subresource || undefined,
          attributes.namespace || undefined,
        );
    }
    return {
      ...review,
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      metadata: { creationTimestamp: null },
      status: { allowed },
    };
  }

  async function handleResource(
    req: IncomingMessage,
    res: ServerResponse,
    request: ResourceRequest,
    query: URLSearchParams,
  ): Promise<void> {
    const namespace = request.type.namespaced ? request.namespace : undefined;
    if (request.type.plural === 'selfsubjectaccessreviews' && request.type.group === 'authorization.k8s.io') {
      sendJson(res, 201, accessReview(parseJson(await readBody(req))));
      return;
    }
    if (isForbidden(request.verb, request.type, request.subresource, namespace)) {
      throw forbidden({
        user,
        verb: request.verb,
        type: request.type,
        ...(request.subresource ? { subresource: request.subresource } : {}),
        ...(namespace ? { namespace } : {}),
        ...(request.name ? { name: request.name } : {}),
      });
    }
    const dryRun = query.get('dryRun') === 'All';
    switch (request.verb) {
      case 'get': {
        const object = store.get(request.type, request.namespace, request.name ?? '');
        if (!object) throw notFound(request.type, request.name ?? '');
        sendJson(res, 200, present(request.type, object));
        return;
      }
      case 'list':
        sendJson(res, 200, list(request, query));
        return;
      case 'watch':
        watch(request, query, res);
        return;
      case 'create':
        sendJson(res, 201, rest.create(request, parseJson(await readBody(req)), { dryRun }));
        return;
      case 'update':
        sendJson(res, 200, rest.replace(request, parseJson(await readBody(req)), { dryRun }));
        return;
      case 'patch': {
        const patchType = patchTypeOf(req.headers['content-type']);
        const body = parsePatchBody(patchType, await readBody(req));
        const existed = store.get(request.type, request.namespace, request.name ?? '') !== undefined;
        const object = rest.patch(request, patchType, body, {
          dryRun,
          ...(query.get('fieldManager') ? { fieldManager: query.get('fieldManager') ?? '' } : {}),
        });
        sendJson(res, existed ? 200 : 201, object);
        return;
      }
      case 'delete':
        sendJson(res, 200, rest.delete(request, { dryRun }));
        return;
      case 'deletecollection': {
        const labels = parseLabelSelector(query.get('labelSelector'));
        const deleted = store.list(request.type, request.namespace).filter(labels);
        for (const object of deleted)
          rest.delete(
            { ...request, name: object.metadata?.name ?? '', namespace: object.metadata?.namespace ?? '' },
            { dryRun },
          );
        sendJson(res, 200, list(request, new URLSearchParams()));
        return;
      }
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake-kube');
    const method = req.method ?? 'GET';
    fake.requests.push({
      method,
      path: url.pathname,
      query: url.search.replace(/^\?/, ''),
      ...(req.headers['content-type'] ? { contentType: req.headers['content-type'] } : {}),
    });
    const wait = Math.max(
      0,
      ...delays.filter((rule) => !rule.match || rule.match(method, url.pathname)).map((rule) => rule.ms),
    );
    if (wait > 0) await new Promise((resolveWait) => setTimeout(resolveWait, wait));
    if (req.headers.authorization !== `Bearer ${token}`) throw unauthorized();

    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const api = discovery(store.types(), fake.url.replace(/^http:\/\//, ''));
    if (parts[0] === 'version' && parts.length === 1)
      return sendJson(res, 200, { major: '1', minor: '33', gitVersion: 'v1.33.0-fake', platform: 'linux/amd64' });
    if (['healthz', 'readyz', 'livez'].includes(parts[0] ?? '') && parts.length === 1) {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('ok');
      return;
    }
    let group: string;
    let version: string;
    let rest: string[];
    if (parts[0] === 'api') {
      if (parts.length === 1) return sendJson(res, 200, api.coreVersions());
      if (parts[1] !== 'v1') return pageNotFound(res);
      [group, version, rest] = ['', 'v1', parts.slice(2)];
    } else if (parts[0] === 'apis') {
      if (parts.length === 1) return sendJson(res, 200, api.groupList());
      if (parts.length === 2) {
        const document = api.group(parts[1] ?? '');
        return document ? sendJson(res, 200, document) : pageNotFound(res);
      }
      [group, version, rest] = [parts[1] ?? '', parts[2] ?? '', parts.slice(3)];
    } else return pageNotFound(res);

    if (rest.length === 0) {
      const document = api.resources(group, version);
      return document ? sendJson(res, 200, document) : pageNotFound(res);
    }
    const request = resolve(method, group, version, rest, url.searchParams);
    if (request === 'not-found') return pageNotFound(res);
    if (request === 'not-allowed') throw methodNotAllowed();
    await handleResource(req, res, request, url.searchParams);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (error instanceof StatusError) return sendStatus(res, error.status);
      sendStatus(res, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: String(error),
        reason: 'InternalError',
        code: 500,
      });
    });
  });
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  writeFileSync(
    kubeconfigPath,
    toYaml({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'fake', cluster: { server: url, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'fake', user: { token } }],
      contexts: [{ name: 'fake', context: { cluster: 'fake', user: 'fake', namespace: 'default' } }],
      'current-context': 'fake',
    }),
  );

  const fake: FakeKube = {
    url,
    kubeconfigPath,
    token,
    requests: [],
    expiredWatch: 'event',
    kubeConfig() {
      const config = new KubeConfig();
      config.loadFromFile(kubeconfigPath);
      return config;
    },
    put(obj) {
      const type = typeOf(obj.apiVersion ?? '', obj.kind ?? '');
      if (!type) throw new Error(`put: the fake serves no ${obj.kind} in ${obj.apiVersion} (is its CRD installed?)`);
      return rest.seed(type, obj);
    },
    get(apiVersion, kind, namespace, name) {
      const type = typeOf(apiVersion, kind);
      const object = type && store.get(type, namespace, name);
      return type && object ? present(type, object) : undefined;
    },
    list(apiVersion, kind, namespace) {
      const type = typeOf(apiVersion, kind);
      return type ? store.list(type, namespace).map((object) => present(type, object)) : [];
    },
    remove(apiVersion, kind, namespace, name) {
      const type = typeOf(apiVersion, kind);
      if (type) store.delete(type, namespace, name);
    },
    forbid(rule) {
      forbidRules.push(rule);
    },
    delay(ms, match) {
      if (ms <= 0 && !match) delays.length = 0;
      else delays.push({ ms, ...(match ? { match } : {}) });
    },
    dropWatches() {
      store.closeWatches();
    },
    compact() {
      store.compact();
    },
    bookmark() {
      for (const send of bookmarkers) send();
    },
    watches() {
      return store.openWatches().map(({ type, namespace }) => ({
        apiVersion: groupVersionOf(type),
        resource: type.plural,
        ...(namespace !== undefined ? { namespace } : {}),
      }));
    },
    async close() {
      store.closeWatches();
      await new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        server.closeAllConnections();
      });
      rmSync(dir, { recursive: true, force: true });
    },
  };

  for (const name of ['default', 'kube-system']) fake.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  if (options.crdInstalled !== false) fake.put(svcInstrumentationCrd());
  return fake;
}
