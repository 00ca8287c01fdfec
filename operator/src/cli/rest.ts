import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { ApiException, type KubeConfig } from '@kubernetes/client-node';

const TIMEOUT_MS = 30_000;

/**
 * A small JSON client for the Kubernetes REST API, authenticated from the kubeconfig by client-node.
 *
 * Why not client-node's KubernetesObjectApi: it serializes objects through its typed models, which spell schema
 * keywords differently (`_enum`, `xKubernetesIntOrString`) and drop the wire names, so a CustomResourceDefinition
 * sent through it loses its enums and int-or-string markers. The CLI sends objects exactly as rendered, like kubectl.
 *
 * Failures match client-node's: an ApiException (code, JSON body text) for an HTTP error status, the network error
 * (ECONNREFUSED, ...) otherwise, so one describer explains both.
 */
export class RestClient {
  constructor(private readonly kubeConfig: KubeConfig) {}

  /** The API server address of the current context. */
  get server(): string {
    return this.kubeConfig.getCurrentCluster()?.server ?? '';
  }

  async get<T>(path: string): Promise<T> {
    return this.send<T>('GET', path);
  }

  /** GET that answers undefined for 404 (the object, or its kind, does not exist). */
  async find<T>(path: string): Promise<T | undefined> {
    try {
      return await this.send<T>('GET', path);
    } catch (error) {
      if (error instanceof ApiException && error.code === 404) return undefined;
      throw error;
    }
  }

  async post<T>(path: string, body: unknown, options: { dryRun?: boolean } = {}): Promise<T> {
    return this.send<T>('POST', withDryRun(path, options.dryRun), body);
  }

  async put<T>(path: string, body: unknown, options: { dryRun?: boolean } = {}): Promise<T> {
    return this.send<T>('PUT', withDryRun(path, options.dryRun), body);
  }

  /** DELETE that answers false when there was nothing to delete. */
  async delete(path: string): Promise<boolean> {
    try {
      await this.send('DELETE', path);
      return true;
    } catch (error) {
      if (error instanceof ApiException && error.code === 404) return false;
      throw error;
    }
  }

  private async send<T>(method: string, path: string, body?: unknown): Promise<T> {
    // Appended, not resolved: a server URL with a path (a proxy such as Rancher's) keeps it.
    const url = new URL(`${this.server.replace(/\/+$/, '')}${path}`);
    const options: RequestOptions = {
      method,
      headers: { Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      timeout: TIMEOUT_MS,
    };
    await this.kubeConfig.applyToHTTPSOptions(options);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const { status, headers, text } = await exchange(url, options, payload);
    if (status < 200 || status > 299) {
      throw new ApiException(status, `${method} ${url.pathname} answered ${status}`, text, flatten(headers));
    }
    return (text ? JSON.parse(text) : undefined) as T;
  }
}

function exchange(
  url: URL,
  options: RequestOptions,
  payload: string | undefined,
): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'http:' ? httpRequest : httpsRequest;
    const req = send(url, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.on('timeout', () =>
      req.destroy(
        Object.assign(new Error(`no answer from ${url.origin} within ${TIMEOUT_MS / 1000} s`), { code: 'ETIMEDOUT' }),
      ),
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const withDryRun = (path: string, dryRun: boolean | undefined) =>
  dryRun ? `${path}${path.includes('?') ? '&' : '?'}dryRun=All` : path;

function flatten(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([key, value]) => [key, Array.isArray(value) ? value.join(', ') : (value ?? '')]),
  );
}
