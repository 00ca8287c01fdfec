/**
 * Keeps `clientConfig.caBundle` of every webhook in the MutatingWebhookConfiguration equal to the CAs the serving
 * certificate chains to. A re-applied manifest or someone's edit that changes it is put back on the next check.
 */
import { ApiException, type AdmissionregistrationV1Api } from '@kubernetes/client-node';

export type CaBundleSync =
  | { outcome: 'unchanged' }
  | { outcome: 'patched'; webhooks: string[] }
  | { outcome: 'missing' };

/**
 * Patches the webhooks whose caBundle differs from `bundlePem`. A JSON patch touches only those fields, and its `test`
 * of each webhook's name makes a concurrent reordering of the list fail (422) instead of patching the wrong entry;
 * the next check then starts over from a fresh read.
 */
export async function syncCaBundle(
  api: AdmissionregistrationV1Api,
  name: string,
  bundlePem: string,
): Promise<CaBundleSync> {
  const wanted = Buffer.from(bundlePem, 'utf8').toString('base64');
  let configuration;
  try {
    configuration = await api.readMutatingWebhookConfiguration({ name });
  } catch (error) {
    if (error instanceof ApiException && error.code === 404) return { outcome: 'missing' };
    throw error;
  }
  const operations: { op: 'test' | 'add'; path: string; value: string }[] = [];
  const patched: string[] = [];
  (configuration.webhooks ?? []).forEach((webhook, index) => {
    if (webhook.clientConfig.caBundle === wanted) return;
    operations.push({ op: 'test', path: `/webhooks/${index}/name`, value: webhook.name });
    // `add` on an object member sets it whether it exists or not.
    operations.push({ op: 'add', path: `/webhooks/${index}/clientConfig/caBundle`, value: wanted });
    patched.push(webhook.name);
  });
  if (operations.length === 0) return { outcome: 'unchanged' };
  // client-node sends a PATCH body as application/json-patch+json unless told otherwise.
  await api.patchMutatingWebhookConfiguration({ name, body: operations });
  return { outcome: 'patched', webhooks: patched };
}
