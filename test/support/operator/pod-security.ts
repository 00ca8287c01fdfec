import type { V1Container, V1PodSpec } from '@kubernetes/client-node';

const RESTRICTED_VOLUMES = [
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'persistentVolumeClaim',
  'projected',
  'secret',
];
const SAFE_SYSCTLS = [
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
];

/**
 * The Pod Security Standards `restricted` profile (which includes `baseline`), checked on a pod spec the way
 * kube-apiserver's PodSecurity admission does. Returns the violations; empty means the pod would be admitted in a
 * namespace labelled `pod-security.kubernetes.io/enforce: restricted`.
 */
export function restrictedViolations(pod: V1PodSpec): string[] {
  const violations: string[] = [];
  const podContext = pod.securityContext ?? {};
  if (pod.hostNetwork || pod.hostPID || pod.hostIPC) violations.push('host namespaces');
  for (const volume of pod.volumes ?? []) {
    const type = Object.keys(volume).find((key) => key !== 'name') ?? '';
    if (!RESTRICTED_VOLUMES.includes(type)) violations.push(`volume ${volume.name} of type ${type}`);
  }
  for (const sysctl of podContext.sysctls ?? [])
    if (!SAFE_SYSCTLS.includes(sysctl.name)) violations.push(`sysctl ${sysctl.name}`);
  const podSeccomp = podContext.seccompProfile?.type;
  if (podSeccomp !== undefined && !['RuntimeDefault', 'Localhost'].includes(podSeccomp))
    violations.push(`pod seccomp ${podSeccomp}`);
  if (podContext.runAsUser === 0) violations.push('pod runAsUser 0');
  const containers: V1Container[] = [...(pod.initContainers ?? []), ...pod.containers];
  for (const container of containers) {
    const sc = container.securityContext ?? {};
    const name = container.name;
    if (sc.privileged) violations.push(`${name}: privileged`);
    if (sc.allowPrivilegeEscalation !== false) violations.push(`${name}: allowPrivilegeEscalation must be false`);
    if (!(sc.runAsNonRoot === true || (podContext.runAsNonRoot === true && sc.runAsNonRoot !== false)))
      violations.push(`${name}: runAsNonRoot`);
    if (sc.runAsUser === 0) violations.push(`${name}: runAsUser 0`);
    const seccomp = sc.seccompProfile?.type ?? podSeccomp;
    if (seccomp === undefined || !['RuntimeDefault', 'Localhost'].includes(seccomp))
      violations.push(`${name}: seccompProfile`);
    if (!(sc.capabilities?.drop ?? []).includes('ALL')) violations.push(`${name}: capabilities must drop ALL`);
    for (const added of sc.capabilities?.add ?? [])
      if (added !== 'NET_BIND_SERVICE') violations.push(`${name}: adds ${added}`);
    if (sc.procMount !== undefined && sc.procMount !== 'Default') violations.push(`${name}: procMount`);
    for (const port of container.ports ?? []) if (port.hostPort) violations.push(`${name}: hostPort ${port.hostPort}`);
  }
  return violations;
}
