/** A connection's sync as `GET /control-plane/cost/providers/{id}/sync` shows it (docs/cost.md). */
export interface SyncStatus {
  state: 'running' | 'due' | 'scheduled' | 'retrying';
  last_run: {
    started_at: string;
    finished_at: string;
    status: 'succeeded' | 'failed';
    line_items: number | null;
    periods: string[] | null;
    error: string | null;
  } | null;
}

export interface MappingRule {
  match: { tag: string; pattern: string } | { resource_name_prefix: string };
  attribute_to?: 'service' | 'env';
  attribute_to_service?: string;
}

/** The cost control-plane calls the benchmark makes, with the bootstrapped control key. */
export interface CostControl {
  /** A timed request; throws on a non-2xx answer. */
  call(method: string, path: string, body?: unknown): Promise<{ body: Record<string, unknown>; ms: number }>;
  /** Connects an AWS account (its first sync is due at once); returns the connection's id. */
  connectAws(config: Record<string, string>): Promise<string>;
  syncStatus(providerId: string): Promise<SyncStatus>;
  /** `POST .../sync`: runs the sync now. */
  triggerSync(providerId: string): Promise<void>;
  /** Waits for a run that finished after `after` (the previous run's `finished_at`, or null before the first). */
  awaitSync(providerId: string, after: string | null, timeoutMs: number): Promise<SyncStatus>;
}

const POLL_MS = 200;

export function costControl(serverUrl: string, controlKey: string): CostControl {
  const call: CostControl['call'] = async (method, path, body) => {
    const started = performance.now();
    const res = await fetch(`${serverUrl}/control-plane${path}`, {
      method,
      headers: {
        authorization: `Bearer ${controlKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const ms = performance.now() - started;
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return { body: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>, ms };
  };
  const syncStatus = async (id: string) =>
    (await call('GET', `/cost/providers/${id}/sync`)).body as unknown as SyncStatus;
  return {
    call,
    connectAws: async (config) =>
      (await call('POST', '/cost/providers', { provider: 'aws', name: 'bench account', config })).body.id as string,
    syncStatus,
    triggerSync: async (id) => void (await call('POST', `/cost/providers/${id}/sync`)),
    async awaitSync(id, after, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const status = await syncStatus(id);
        const settled = status.state === 'scheduled' || status.state === 'retrying';
        const done = settled && status.last_run !== null && status.last_run.finished_at !== after;
        if (done) return status;
        if (Date.now() > deadline)
          throw new Error(`the sync of ${id} did not finish within ${timeoutMs / 1000} s (state ${status.state})`);
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    },
  };
}
