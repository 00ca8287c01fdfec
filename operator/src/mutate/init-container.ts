import type { V1Container, V1ResourceRequirements, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import { AGENT_IMAGE_DIR, AGENT_MOUNT_PATH, AGENT_VOLUME, INIT_CONTAINER } from '../markers.js';

/**
 * Enough for `cp` of an agent (the Java agent is ~25 MB, the Node agent with its instrumentations larger); small
 * because an init container's requests count towards the pod's scheduling size.
 */
export const DEFAULT_INIT_RESOURCES: V1ResourceRequirements = {
  requests: { cpu: '50m', memory: '32Mi' },
  limits: { cpu: '500m', memory: '128Mi' },
};

/** Unprivileged user the copy runs as (distroless "nonroot"); an emptyDir is world-writable, the copies world-readable. */
const INIT_USER = 65532;
/** Room for the largest agent with margin; the kubelet evicts a pod whose emptyDir outgrows it. */
const VOLUME_SIZE_LIMIT = '256Mi';

/**
 * `svc-agent-init`: copies the agent from the init image into the `svc-agent` emptyDir, then exits. Its security
 * context passes Pod Security `restricted` (non-root, no privilege escalation, all capabilities dropped,
 * RuntimeDefault seccomp, read-only root filesystem), so it is admitted wherever the application is.
 */
export function initContainer(image: string, resources: V1ResourceRequirements | undefined): V1Container {
  return {
    name: INIT_CONTAINER,
    image,
    command: ['cp', '-R', `${AGENT_IMAGE_DIR}/.`, `${AGENT_MOUNT_PATH}/`],
    resources: structuredClone(resources ?? DEFAULT_INIT_RESOURCES),
    securityContext: {
      runAsNonRoot: true,
      runAsUser: INIT_USER,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    },
    volumeMounts: [{ name: AGENT_VOLUME, mountPath: AGENT_MOUNT_PATH }],
  };
}

export function agentVolume(): V1Volume {
  return { name: AGENT_VOLUME, emptyDir: { sizeLimit: VOLUME_SIZE_LIMIT } };
}

/** The application reads the agent; it never needs to write there. */
export function agentMount(): V1VolumeMount {
  return { name: AGENT_VOLUME, mountPath: AGENT_MOUNT_PATH, readOnly: true };
}
