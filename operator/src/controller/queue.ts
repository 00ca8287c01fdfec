/**
 * Namespaces waiting to be reconciled. Events arrive in bursts (a rollout touches a Deployment, a ReplicaSet and
 * every pod), so a namespace is reconciled once per short quiet period, never twice at the same time, and a failed
 * reconcile comes back later with capped exponential backoff.
 */
import type { Logger } from '../log.js';

export interface QueueOptions {
  reconcile: (namespace: string) => Promise<void>;
  debounceMs: number;
  retry: { initialMs: number; maxMs: number };
  log: Logger;
}

export class NamespaceQueue {
  private readonly dirty = new Set<string>();
  private readonly attempts = new Map<string, number>();
  private readonly retries = new Set<NodeJS.Timeout>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private opened = false;
  private closed = false;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly options: QueueOptions) {}

  add(namespace: string): void {
    if (this.closed) return;
    this.dirty.add(namespace);
    this.schedule();
  }

  /** Starts processing (the controller opens the queue once its caches have synced). */
  open(): void {
    this.opened = true;
    this.schedule();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    for (const retry of this.retries) clearTimeout(retry);
    this.dirty.clear();
    this.notifyIdle();
  }

  /** Resolves when nothing is queued, scheduled or running. */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private isIdle(): boolean {
    return this.closed || (this.dirty.size === 0 && !this.timer && !this.running);
  }

  private notifyIdle(): void {
    if (!this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private schedule(): void {
    if (!this.opened || this.closed || this.timer || this.running || this.dirty.size === 0) return;
    this.timer = setTimeout(() => void this.run(), this.options.debounceMs);
  }

  private async run(): Promise<void> {
    this.timer = undefined;
    this.running = true;
    const batch = [...this.dirty];
    this.dirty.clear();
    for (const namespace of batch) {
      if (this.closed) break;
      try {
        await this.options.reconcile(namespace);
        this.attempts.delete(namespace);
      } catch (error) {
        this.retryLater(namespace, error);
      }
    }
    this.running = false;
    this.schedule();
    this.notifyIdle();
  }

  private retryLater(namespace: string, error: unknown): void {
    const attempt = (this.attempts.get(namespace) ?? 0) + 1;
    this.attempts.set(namespace, attempt);
    const delay = Math.min(this.options.retry.initialMs * 2 ** (attempt - 1), this.options.retry.maxMs);
    this.options.log.warn(`reconciling namespace ${namespace} failed; retrying in ${delay} ms`, {
      namespace,
      error,
      attempt,
    });
    const timer = setTimeout(() => {
      this.retries.delete(timer);
      this.add(namespace);
    }, delay);
    this.retries.add(timer);
  }
}
