import { randomBytes } from 'node:crypto';
import { startWorkLoop, type WorkLoop } from '../notify/outbox/loop';
import { runErasure, type ErasureDeps } from './job';
import { claimErasure, type ErasureRow } from './store';

export interface ErasureWorkerOptions {
  /** How often queued jobs (the CLI's, another replica's) and lapsed ones are looked for. Default 10 s. */
  pollMs?: number;
  /** A job whose process stops renewing its lease for this long is taken over. Default 30 s. */
  leaseMs?: number;
}

/** `wake` after queueing a job (after its commit); `stop` ends the job under way between two batches. */
export type ErasureWorker = Pick<WorkLoop, 'wake' | 'drain' | 'stop'>;

/**
 * Runs deletion jobs one at a time in this process, claimed from the job table with a lease renewed while the job
 * runs: replicas sharing the database never run one twice, and a job of a process that died is taken over once its
 * lease runs out (docs/governance.md, "Deletion on request").
 */
export function startErasureWorker(deps: ErasureDeps, options: ErasureWorkerOptions = {}): ErasureWorker {
  const leaseMs = options.leaseMs ?? 30_000;
  const owner = `e_${randomBytes(6).toString('hex')}`;
  const closing = new AbortController();
  const loop = startWorkLoop<ErasureRow>({
    pollMs: options.pollMs ?? 10_000,
    concurrency: 1,
    claim: () => claimErasure(deps.db, deps.dialect, { owner, nowMs: deps.clock.now(), leaseMs }),
    work: (row) =>
      runErasure(deps, row, { owner, leaseMs }, closing.signal).catch((error: unknown) =>
        deps.log(`erasure ${row.id} could not be recorded: ${error instanceof Error ? error.message : String(error)}`),
      ),
    onClaimError: (error) => deps.log(`erasure worker: ${error instanceof Error ? error.message : String(error)}`),
  });
  return {
    wake: loop.wake,
    drain: loop.drain,
    async stop() {
      closing.abort();
      await loop.stop();
    },
  };
}
