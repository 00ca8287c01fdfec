import type { OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest, type Agent } from 'node:https';
import { randomUUID } from 'node:crypto';
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import type { Operation } from 'fast-json-patch';
import { expect } from 'vitest';
import { SYSTEM_NAMESPACE, WEBHOOK_PATH, WEBHOOK_SERVICE } from '../../../operator/src/markers';

/** The name kube-apiserver dials for the webhook Service, and so the name the serving certificate must carry. */
export const SERVICE_HOST = `${WEBHOOK_SERVICE}.${SYSTEM_NAMESPACE}.svc`;

/** An AdmissionReview v1 as kube-apiserver posts it for a pod CREATE. */
export function review(
  pod: unknown,
  overrides: Record<string, unknown> = {},
  uid: string = randomUUID(),
): Record<string, unknown> {
  return {
    kind: 'AdmissionReview',
    apiVersion: 'admission.k8s.io/v1',
    request: {
      uid,
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      requestKind: { group: '', version: 'v1', kind: 'Pod' },
      requestResource: { group: '', version: 'v1', resource: 'pods' },
      namespace: 'shop',
      operation: 'CREATE',
      userInfo: {
        username: 'system:serviceaccount:kube-system:replicaset-controller',
        uid: '8f1c6a2e-0b7d-4c55-a0a4-6f2f4d1b9c3e',
        groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
      },
      object: pod,
      oldObject: null,
      dryRun: false,
      options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
      ...overrides,
    },
  };
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  /** The error the client saw while sending, after the answer had arrived (e.g. EPIPE, ECONNRESET); none when it sent all. */
  requestError?: string;
  /** Whether the request went over a kept-alive connection an earlier request had used. */
  reusedSocket: boolean;
}

export interface Client {
  ca: string;
  servername?: string;
  agent?: Agent;
}

/**
 * One HTTPS request; `body` may be a Buffer too large to send whole (the server may answer before it is all written).
 * Settles once both the answer has been read and the request is over, so `requestError` is whatever sending the rest
 * of the body ran into.
 */
export function call(
  port: number,
  client: Client,
  options: {
    method?: string;
    path?: string;
    body?: string | Buffer;
    headers?: OutgoingHttpHeaders;
    /** false: send the body and then stall, never ending the request. */ end?: boolean;
  } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let answered = false;
    let received: Omit<Answer, 'requestError'> | undefined;
    let requestError: string | undefined;
    let requestOver = false;
    const settle = () => {
      if (received && requestOver) resolve({ ...received, ...(requestError === undefined ? {} : { requestError }) });
    };
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'POST',
        path: options.path ?? `${WEBHOOK_PATH}?timeout=10s`,
        ca: client.ca,
        servername: client.servername ?? SERVICE_HOST,
        agent: client.agent ?? false,
        // A header given as undefined is left out (a GET without a content type).
        headers: Object.fromEntries(
          Object.entries({
            'content-type': 'application/json',
            accept: 'application/json, */*',
            ...options.headers,
          }).filter(([, v]) => v !== undefined),
        ),
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // plain-text endpoints
          }
          received = { status: res.statusCode ?? 0, headers: res.headers, body, reusedSocket: req.reusedSocket };
          settle();
        });
        res.on('error', reject);
      },
    );
    // Writing a huge body may fail once the server has answered and closed: the answer still counts, the error is kept.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (!answered) reject(error);
      requestError ??= error.code ?? error.message;
    });
    req.on('close', () => {
      requestOver = true;
      settle();
    });
    if (options.body !== undefined) req.write(options.body);
    if (options.end !== false) req.end();
  });
}

export const post = (port: number, client: Client, body: unknown, headers?: OutgoingHttpHeaders) =>
  call(port, client, { body: JSON.stringify(body), headers });

export function decodePatch(answer: Answer): Operation[] {
  expect(answer.body.response.patchType).toBe('JSONPatch');
  return JSON.parse(Buffer.from(answer.body.response.patch, 'base64').toString('utf8')) as Operation[];
}

/**
 * What kube-apiserver has added to a pod by the time a mutating webhook sees it: defaults (restart and DNS policy,
 * termination settings, tolerations, priority) and the ServiceAccount admission plugin's projected token volume,
 * mounted into every container. Webhook tests and the webhook benchmark send pods through this, so the mutation
 * meets the fields a real API server sends.
 */
export function asApiServerSends(pod: V1Pod, tokenVolume = 'kube-api-access-8x2kq'): V1Pod {
  const spec = pod.spec!;
  const withDefaults = (container: V1Container): V1Container => ({
    ...container,
    volumeMounts: [
      ...(container.volumeMounts ?? []),
      { name: tokenVolume, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' },
    ],
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    imagePullPolicy: 'IfNotPresent',
  });
  return {
    ...pod,
    spec: {
      ...spec,
      volumes: [
        ...(spec.volumes ?? []),
        {
          name: tokenVolume,
          projected: {
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
              { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
              {
                downwardAPI: {
                  items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }],
                },
              },
            ],
            defaultMode: 420,
          },
        },
      ],
      containers: spec.containers.map(withDefaults),
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'default',
      serviceAccount: 'default',
      securityContext: {},
      schedulerName: 'default-scheduler',
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
      priority: 0,
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
    },
    status: {},
  };
}
