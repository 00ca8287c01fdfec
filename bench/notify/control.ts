/** The control-plane calls the benchmark makes, with the bootstrapped control key. */
export interface ControlPlane {
  /** A webhook channel to `url`; returns its id. */
  webhookChannel(name: string, url: string): Promise<string>;
  /** A rule sending every incident to `channelIds` after `delaySeconds`; returns its id. */
  rule(name: string, channelIds: string[], delaySeconds: number): Promise<string>;
  deleteRule(id: string): Promise<void>;
  /** `POST /control-plane/incidents`, as an external detector would; returns the incident's id. */
  openIncident(sequence: number): Promise<string>;
}

export function controlPlane(serverUrl: string, controlKey: string): ControlPlane {
  const call = async (method: string, path: string, body?: unknown): Promise<{ id: string }> => {
    const res = await fetch(`${serverUrl}/control-plane${path}`, {
      method,
      headers: {
        authorization: `Bearer ${controlKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return (text === '' ? {} : JSON.parse(text)) as { id: string };
  };
  return {
    webhookChannel: async (name, url) =>
      (await call('POST', '/notifications/channels', { type: 'webhook', name, config: { url } })).id,
    rule: async (name, channelIds, delaySeconds) =>
      (await call('POST', '/notifications/rules', { name, channels: channelIds, delay_seconds: delaySeconds })).id,
    deleteRule: async (id) => void (await call('DELETE', `/notifications/rules/${id}`)),
    openIncident: async (sequence) =>
      (
        await call('POST', '/incidents', {
          title: `Checkout fails for some users (#${sequence})`,
          severity: 'critical',
          env: 'production',
          services: ['shop-web', 'cart-api'],
          root_cause_summary:
            "TypeError: Cannot read properties of undefined (reading 'items') at renderCart (cart.js:42:17), since release 1.4.2",
        })
      ).id,
  };
}
