/** A control-plane request that must succeed: its parsed answer. */
export type ControlCall = <T>(method: string, path: string, body?: unknown) => Promise<T>;

/**
 * What the tests of several server processes evaluating together fire: a webhook channel to `hookUrl` told of every
 * incident, and `count` rules, one per endpoint `GET /api/endpoint-<n>`, each firing when more than a quarter of its
 * spans fail within `windowSeconds`.
 */
export async function createEndpointRules(
  call: ControlCall,
  hookUrl: string,
  count: number,
  windowSeconds: number,
): Promise<void> {
  const channel = await call<{ id: string }>('POST', '/notifications/channels', {
    type: 'webhook',
    name: 'on call',
    config: { url: hookUrl },
  });
  await call('POST', '/notifications/rules', { name: 'all', channels: [channel.id], delay_seconds: 0 });
  for (let rule = 0; rule < count; rule++)
    await call('POST', '/alert-rules', {
      name: `Endpoint ${rule} errors`,
      signal: 'spans',
      query: { aggregate: 'error_rate', filter: { name: `GET /api/endpoint-${rule}` } },
      window_seconds: windowSeconds,
      condition: { type: 'threshold', op: 'above', value: 0.25 },
      severity: 'high',
    });
}
