/**
 * The API surface the fake serves: built-in resource types svc-zero touches, plus one type per served version of every
 * CustomResourceDefinition stored in it (so `svc.io/v1alpha1` exists exactly while its CRD does, like a real cluster).
 * Also the discovery documents (`/api`, `/apis`, `/api/v1`, `/apis/<g>/<v>`) client-node's KubernetesObjectApi reads.
 */
import type { KubernetesObject } from '@kubernetes/client-node';

export interface ResourceType {
  group: string;
  version: string;
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  verbs: string[];
  shortNames?: string[];
  /** Has a `/status` subresource: the main resource ignores `.status`, the subresource changes nothing else. */
  status: boolean;
  /** `metadata.generation` is kept and bumped when anything outside metadata (and status) changes. */
  generation: boolean;
  /** Built-in types omit `kind`/`apiVersion` on list items (custom resources keep them), as kube-apiserver does. */
  builtIn: boolean;
}

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function builtIn(
  group: string,
  version: string,
  kind: string,
  plural: string,
  options: { namespaced: boolean; status?: boolean; generation?: boolean; shortNames?: string[]; verbs?: string[] },
): ResourceType {
  return {
    group,
    version,
    plural,
    singular: kind.toLowerCase(),
    kind,
    listKind: `${kind}List`,
    namespaced: options.namespaced,
    verbs: options.verbs ?? ALL_VERBS,
    ...(options.shortNames ? { shortNames: options.shortNames } : {}),
    status: options.status ?? false,
    generation: options.generation ?? false,
    builtIn: true,
  };
}

const workload = { namespaced: true, status: true, generation: true };

export const BUILT_IN_TYPES: readonly ResourceType[] = [
  builtIn('', 'v1', 'Namespace', 'namespaces', { namespaced: false, status: true, shortNames: ['ns'] }),
  builtIn('', 'v1', 'Pod', 'pods', { namespaced: true, status: true, generation: true, shortNames: ['po'] }),
  builtIn('', 'v1', 'Secret', 'secrets', { namespaced: true }),
  builtIn('', 'v1', 'Service', 'services', { namespaced: true, status: true, shortNames: ['svc'] }),
  builtIn('', 'v1', 'ServiceAccount', 'serviceaccounts', { namespaced: true, shortNames: ['sa'] }),
  builtIn('', 'v1', 'ConfigMap', 'configmaps', { namespaced: true, shortNames: ['cm'] }),
  builtIn('apps', 'v1', 'Deployment', 'deployments', { ...workload, shortNames: ['deploy'] }),
  builtIn('apps', 'v1', 'StatefulSet', 'statefulsets', { ...workload, shortNames: ['sts'] }),
  builtIn('apps', 'v1', 'DaemonSet', 'daemonsets', { ...workload, shortNames: ['ds'] }),
  builtIn('apps', 'v1', 'ReplicaSet', 'replicasets', { ...workload, shortNames: ['rs'] }),
  builtIn('admissionregistration.k8s.io', 'v1', 'MutatingWebhookConfiguration', 'mutatingwebhookconfigurations', {
    namespaced: false,
    generation: true,
  }),
  builtIn('apiextensions.k8s.io', 'v1', 'CustomResourceDefinition', 'customresourcedefinitions', {
    namespaced: false,
    status: true,
    generation: true,
    shortNames: ['crd', 'crds'],
  }),
  builtIn('rbac.authorization.k8s.io', 'v1', 'ClusterRole', 'clusterroles', { namespaced: false }),
  builtIn('rbac.authorization.k8s.io', 'v1', 'ClusterRoleBinding', 'clusterrolebindings', { namespaced: false }),
  builtIn('rbac.authorization.k8s.io', 'v1', 'Role', 'roles', { namespaced: true }),
  builtIn('rbac.authorization.k8s.io', 'v1', 'RoleBinding', 'rolebindings', { namespaced: true }),
  builtIn('authorization.k8s.io', 'v1', 'SelfSubjectAccessReview', 'selfsubjectaccessreviews', {
    namespaced: false,
    verbs: ['create'],
  }),
];

export const CRD_TYPE = BUILT_IN_TYPES.find((type) => type.plural === 'customresourcedefinitions') as ResourceType;
export const NAMESPACE_TYPE = BUILT_IN_TYPES.find((type) => type.plural === 'namespaces') as ResourceType;

interface CrdSpec {
  group?: string;
  scope?: string;
  names?: { plural?: string; singular?: string; kind?: string; listKind?: string; shortNames?: string[] };
  versions?: { name?: string; served?: boolean; subresources?: { status?: unknown } }[];
}

/** The resource types a CRD object serves (one per served version); none when it is incomplete. */
export function typesOfCrd(crd: KubernetesObject): ResourceType[] {
  const spec = (crd as { spec?: CrdSpec }).spec;
  const names = spec?.names;
  if (!spec?.group || !names?.plural || !names.kind) return [];
  const { group } = spec;
  const plural = names.plural;
  const kind = names.kind;
  return (spec.versions ?? [])
    .filter((version) => version.name && version.served !== false)
    .map((version) => ({
      group,
      version: version.name as string,
      plural,
      singular: names.singular ?? kind.toLowerCase(),
      kind,
      listKind: names.listKind ?? `${kind}List`,
      namespaced: spec.scope !== 'Cluster',
      verbs: ALL_VERBS,
      ...(names.shortNames ? { shortNames: names.shortNames } : {}),
      status: version.subresources?.status !== undefined,
      generation: true,
      builtIn: false,
    }));
}

export const groupVersionOf = (type: ResourceType) => (type.group ? `${type.group}/${type.version}` : type.version);

/** Storage key: one bucket per group and resource, whichever version a request names. */
export const storageKey = (type: Pick<ResourceType, 'group' | 'plural'>) => `${type.group}/${type.plural}`;

export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** Discovery documents, computed from the types currently served. */
export function discovery(types: readonly ResourceType[], serverAddress: string) {
  const groups = new Map<string, string[]>();
  for (const type of types) {
    if (!type.group) continue;
    const versions = groups.get(type.group) ?? [];
    if (!versions.includes(type.version)) versions.push(type.version);
    groups.set(type.group, versions);
  }
  const apiGroup = (name: string, versions: string[]) => ({
    name,
    versions: versions.map((version) => ({ groupVersion: `${name}/${version}`, version })),
    preferredVersion: { groupVersion: `${name}/${versions[0]}`, version: versions[0] },
  });
  return {
    /** GET /api */
    coreVersions: () => ({
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
    }),
    /** GET /apis */
    groupList: () => ({
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: [...groups].map(([name, versions]) => apiGroup(name, versions)),
    }),
    /** GET /apis/<group>, undefined when the group is not served */
    group: (name: string) => {
      const versions = groups.get(name);
      return versions ? { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(name, versions) } : undefined;
    },
    /** GET /api/v1, /apis/<group>/<version>; undefined when that group version is not served */
    resources: (group: string, version: string) => {
      const served = types.filter((type) => type.group === group && type.version === version);
      if (served.length === 0) return undefined;
      const resources = served.flatMap((type) => {
        const main = {
          name: type.plural,
          singularName: type.singular,
          namespaced: type.namespaced,
          kind: type.kind,
          verbs: type.verbs,
          ...(type.shortNames ? { shortNames: type.shortNames } : {}),
        };
        const status = {
          name: `${type.plural}/status`,
          singularName: '',
          namespaced: type.namespaced,
          kind: type.kind,
          verbs: ['get', 'patch', 'update'],
        };
        return type.status ? [main, status] : [main];
      });
      return {
        kind: 'APIResourceList',
        apiVersion: 'v1',
        groupVersion: group ? `${group}/${version}` : version,
        resources,
      };
    },
  };
}
