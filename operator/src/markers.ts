/**
 * Every name the cluster sees from svc-zero, in one place (SPEC 2.8): the operator's objects, the markers users set
 * on namespaces, pods and containers, and the names of what the mutation adds.
 */

/** Namespace that holds the operator; the webhook never mutates pods in it. */
export const SYSTEM_NAMESPACE = 'svc-system';
export const OPERATOR_NAME = 'svc-zero-operator';
/** The MutatingWebhookConfiguration, its one webhook's name, and the Service in front of the operator's webhook port. */
export const WEBHOOK_CONFIGURATION = 'svc-zero';
export const WEBHOOK_NAME = 'pods.svc-zero.svc.io';
export const WEBHOOK_SERVICE = 'svc-zero-webhook';
export const WEBHOOK_PATH = '/mutate-v1-pod';
/** Secret in svc-system holding the webhook's CA and serving certificate (shared by restarts). */
export const WEBHOOK_TLS_SECRET = 'svc-zero-webhook-tls';

/** The custom resource (SPEC 2.8). */
export const CRD_GROUP = 'svc.io';
export const CRD_VERSION = 'v1alpha1';
export const CRD_KIND = 'SvcInstrumentation';
export const CRD_PLURAL = 'svcinstrumentations';
export const CRD_SHORT_NAME = 'oti';
export const CRD_API_VERSION = `${CRD_GROUP}/${CRD_VERSION}`;

/** Markers (SPEC 2.8). */
export const EXCLUDE_LABEL = 'svc.io/exclude'; // on a namespace, value "true"
export const EXCLUDE_ANNOTATION = 'svc.io/exclude'; // on a pod, value "true"
export const INJECTED_ANNOTATION = 'svc.io/injected'; // on a pod, value "true"
export const LANGUAGE_LABEL = 'svc.io/language'; // on a pod template
export const LANGUAGE_ENV = 'SVC_LANGUAGE'; // on a container
/** Annotations the mutation adds next to `svc.io/injected`, so `kubectl describe pod` tells what happened. */
export const DETECTION_ANNOTATION = 'svc.io/detection'; // "lang=nodejs framework=express strategy=sdk confidence=0.9 container=app"
export const STRATEGY_FALLBACK_ANNOTATION = 'svc.io/strategy-fallback'; // why ebpf became sdk
export const WARNINGS_ANNOTATION = 'svc.io/warnings'; // e.g. NODE_OPTIONS from valueFrom skipped
/** Optional pod annotation naming the container to instrument (else kubectl's default-container, else the first non-sidecar). */
export const CONTAINER_ANNOTATION = 'svc.io/container';
export const KUBECTL_DEFAULT_CONTAINER_ANNOTATION = 'kubectl.kubernetes.io/default-container';

/** What the mutation adds. */
export const INIT_CONTAINER = 'svc-agent-init';
export const EBPF_CONTAINER = 'svc-ebpf';
export const AGENT_VOLUME = 'svc-agent';
export const AGENT_MOUNT_PATH = '/svc-agent';

/** Environment the agents read (SPEC 2.8). */
export const INGEST_URL_ENV = 'SVC_INGEST_URL';
export const API_KEY_ENV = 'SVC_API_KEY';
export const ENVIRONMENT_ENV = 'SVC_ENV';
/** The pod's name through the downward API, so `$(SVC_POD_NAME)` can fill `k8s.pod.name` in OTEL_RESOURCE_ATTRIBUTES. */
export const POD_NAME_ENV = 'SVC_POD_NAME';

/** The CLI's objects in an instrumented namespace. */
export const DEFAULT_INSTRUMENTATION_NAME = 'default';
export const API_KEY_SECRET = 'svc-zero-api-key';
export const API_KEY_SECRET_KEY = 'api-key';

/** Pod Security admission's namespace label (the eBPF sidecar needs `privileged`). */
export const POD_SECURITY_ENFORCE_LABEL = 'pod-security.kubernetes.io/enforce';

/**
 * Agent layout shared by the images (operator/images/) and the mutation: each init image holds its agent under
 * AGENT_IMAGE_DIR/<lang>/ and copies the whole directory into the `svc-agent` volume, so the app container finds it
 * under AGENT_MOUNT_PATH/<lang>/.
 */
export const AGENT_IMAGE_DIR = '/autoinstrumentation';
export const NODE_AGENT_ENTRY = `${AGENT_MOUNT_PATH}/node/register.cjs`;
/** The OpenTelemetry Java agent, then a tiny agent that prints the start line once the first one is loaded. */
export const JAVA_AGENT_JARS = [
  `${AGENT_MOUNT_PATH}/java/opentelemetry-javaagent.jar`,
  `${AGENT_MOUNT_PATH}/java/svc-zero-banner.jar`,
] as const;
/** bootstrap/ holds our sitecustomize.py (start line, then the OpenTelemetry distro's initialize()); the packages sit beside it. */
export const PYTHON_AGENT_PATHS = [`${AGENT_MOUNT_PATH}/python/bootstrap`, `${AGENT_MOUNT_PATH}/python`] as const;
