/**
 * One clear sentence for a failed Kubernetes API call. client-node 1.4 rejects with an ApiException (`code`, and
 * `body` holding the response text — a `Status` JSON for API errors, plain `404 page not found` for a resource type
 * the server does not serve, nothing for 401 from the typed APIs), its Watch with an Error carrying `statusCode`, and
 * network failures with node-fetch's FetchError (`code` ECONNREFUSED, ETIMEDOUT, ...).
 */
import { ApiException } from '@kubernetes/client-node';

/** The parts of kube-apiserver's Status body the descriptions use. */
export interface ApiStatus {
  code: number;
  reason?: string;
  message?: string;
  details?: { name?: string; group?: string; kind?: string };
}

/** HTTP status and (when the body is a Status) its fields; undefined for errors that are not API answers. */
export function apiStatusOf(error: unknown): ApiStatus | undefined {
  if (error instanceof ApiException) return { ...parseStatus(error.body), code: error.code };
  const statusCode = (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof statusCode === 'number') return { code: statusCode };
  return undefined;
}

function parseStatus(body: unknown): Omit<ApiStatus, 'code'> {
  let value: unknown = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body);
    } catch {
      return {};
    }
  }
  if (value === null || typeof value !== 'object' || (value as { kind?: unknown }).kind !== 'Status') return {};
  const { reason, message, details } = value as { reason?: unknown; message?: unknown; details?: ApiStatus['details'] };
  return {
    ...(typeof reason === 'string' ? { reason } : {}),
    ...(typeof message === 'string' ? { message } : {}),
    ...(details && typeof details === 'object' ? { details } : {}),
  };
}

const FORBIDDEN =
  /cannot (\S+) resource "([^"]+)" in API group "([^"]*)" (?:in the namespace "([^"]+)"|at the cluster scope)/;
const USER = /User "([^"]+)"/;

/** `secrets "k" not found` → `secrets "k"`: what a NotFound Status names. */
function named(status: ApiStatus): string | undefined {
  const { kind, group, name } = status.details ?? {};
  if (!kind) return undefined;
  const resource = group ? `${kind}.${group}` : kind;
  return name ? `${resource} "${name}"` : resource;
}

const NETWORK: Record<string, string> = {
  ECONNREFUSED: 'connection refused (is the cluster running, and is the server address in the kubeconfig right?)',
  ETIMEDOUT: 'the connection timed out (is the server address reachable from here?)',
  ECONNRESET: 'the connection was reset by the server or a proxy',
  ENOTFOUND: 'the server name does not resolve (is the server address in the kubeconfig right?)',
  EAI_AGAIN: 'the server name could not be resolved right now (DNS)',
  EHOSTUNREACH: 'the server host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  DEPTH_ZERO_SELF_SIGNED_CERT:
    "the server's certificate is self-signed and not trusted by the kubeconfig's certificate-authority",
  SELF_SIGNED_CERT_IN_CHAIN: "the server's certificate is not trusted by the kubeconfig's certificate-authority",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's certificate is not trusted by the kubeconfig's certificate-authority",
  CERT_HAS_EXPIRED: "the server's certificate has expired",
  ERR_TLS_CERT_ALTNAME_INVALID: "the server's certificate does not name the address in the kubeconfig",
};

/** Network-level failures: node-fetch's FetchError keeps the system error's code; its message names the URL. */
function networkProblem(error: unknown): { problem: string; url?: string } | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  const url = /request to (\S+) failed/.exec(error.message)?.[1];
  const where = url ? { url: new URL(url).origin } : {};
  if (typeof code === 'string' && NETWORK[code]) return { problem: NETWORK[code], ...where };
  if (
    error.name === 'AbortError' ||
    (error as { type?: unknown }).type === 'aborted' ||
    error.name === 'TimeoutError'
  ) {
    return { problem: 'no answer before the deadline (request cancelled)', ...where };
  }
  if ((error as { type?: unknown }).type === 'request-timeout')
    return { problem: 'no answer before the request timeout', ...where };
  return undefined;
}

/**
 * One sentence saying what went wrong and what to do, for an error from a Kubernetes API call. `action` says what was
 * being done, in the form "creating Secret svc-zero-api-key in namespace shop".
 */
export function describeApiError(error: unknown, action: string): string {
  const status = apiStatusOf(error);
  if (status) return describeStatus(status, action);
  const network = networkProblem(error);
  if (network)
    return `cannot reach the Kubernetes API server${network.url ? ` at ${network.url}` : ''} while ${action}: ${network.problem}`;
  const message = error instanceof Error ? error.message : String(error);
  return `${action} failed: ${message.split('\n')[0]}`;
}

function describeStatus(status: ApiStatus, action: string): string {
  const { code, reason, message } = status;
  switch (code) {
    case 401:
      return `not authenticated to the Kubernetes API while ${action}: the credentials in the kubeconfig were rejected (expired token or certificate? log in to the cluster again)`;
    case 403: {
      const rbac = message ? FORBIDDEN.exec(message) : null;
      const user = message ? USER.exec(message)?.[1] : undefined;
      if (rbac) {
        const [, verb, resource, group, namespace] = rbac;
        const qualified = group ? `${resource}.${group}` : resource;
        const scope = namespace ? `in namespace ${namespace}` : 'at cluster scope';
        return `missing permission: cannot ${verb} ${qualified} ${scope}${user ? ` (user "${user}")` : ''} while ${action}; ask a cluster admin for this RBAC permission`;
      }
      return `missing permission while ${action}: ${message ?? 'forbidden by the API server'}`;
    }
    case 404:
      if (reason === 'NotFound') return `${action} failed: ${named(status) ?? message ?? 'the object'} not found`;
      // A 404 without a Status body: the server does not serve this resource type at all.
      return `${action} failed: the API server does not serve this resource type (is its CustomResourceDefinition installed? install svc-zero first)`;
    case 409:
      if (reason === 'AlreadyExists') return `${action} failed: ${named(status) ?? 'the object'} already exists`;
      return `${action} failed: the object was changed by someone else meanwhile (conflict); run the command again`;
    case 410:
      return `${action} failed: the watch's resourceVersion is too old (410 Gone); the list must be read again`;
    case 422:
      return `${action} failed: the API server rejected the object as invalid: ${message ?? 'no details given'}`;
    case 429:
      return `${action} failed: the API server is rate-limiting requests (429); try again shortly`;
    default:
      if (code >= 500)
        return `${action} failed: the API server had an internal error (${code}${message ? `: ${message}` : ''}); try again`;
      return `${action} failed: the API server answered ${code}${message ? `: ${message}` : reason ? ` (${reason})` : ''}`;
  }
}
