import { setTimeout as wait } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { recordAudit } from '../audit/store';
import { systemClock } from '../clock';
import { countsText, findErasure, jobOf, queueErasure, type ErasureJob } from '../erasure/store';
import { parseTarget, type ErasureTarget } from '../erasure/target';
import { startErasureWorker } from '../erasure/worker';
import { DomainError } from '../shared/domain-errors';
import { openServerDatabase } from './database';
import { projectOf, UsageError } from './resolve';

export const ERASE_USAGE = `Deletion on request (docs/governance.md, "Deletion on request"; on the server's database):
  svc-server erase --user-id ID | --session-id ID | --attribute KEY=VALUE [--project ID|NAME] [--wait]
      queues a job deleting everything of that user, session or attribute value from the project; a running server
      takes it at its next poll (10 s). --wait runs it here (or waits for the server that took it) and prints the
      counts. The value is never printed: jobs show a digest.`;

type Out = (line: string) => void;

/** How often --wait looks at a job another process took. */
const WAIT_POLL_MS = 500;

/** The flag each field of a target is given with. */
const FLAG: Record<string, string> = {
  user_id: '--user-id',
  session_id: '--session-id',
  'attribute.key': '--attribute',
  'attribute.value': '--attribute',
};

function targetFrom(values: { 'user-id'?: string; 'session-id'?: string; attribute?: string }): ErasureTarget {
  const given = (['user-id', 'session-id', 'attribute'] as const).filter((flag) => values[flag] !== undefined);
  if (given.length !== 1)
    throw new UsageError(`name exactly one of --user-id, --session-id, --attribute\n${ERASE_USAGE}`);
  const { attribute } = values;
  const at = attribute?.indexOf('=') ?? -1;
  if (attribute !== undefined && at <= 0) throw new UsageError(`--attribute must be KEY=VALUE (got "${attribute}")`);
  try {
    return parseTarget({
      user_id: values['user-id'],
      session_id: values['session-id'],
      attribute: attribute === undefined ? undefined : { key: attribute.slice(0, at), value: attribute.slice(at + 1) },
    });
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const field = (error.details as { field?: string } | undefined)?.field ?? '';
    throw new UsageError(`${FLAG[field] ?? field}: ${error.message}`);
  }
}

/** One line per job state: never the value, its digest. */
const describe = (job: ErasureJob) => {
  const key = job.target.key ? ` ${job.target.key}` : '';
  const counts = countsText(job.counts);
  return `erasure ${job.id} (${job.target.kind}${key} ${job.target.digest}): ${job.status}${counts && `, ${counts}`}${job.error ? `: ${job.error}` : ''}`;
};

/**
 * Runs `erase`: queues a deletion job on the server's database with its audit entry (actor `cli`), and with --wait
 * works it in this process (claimed like any replica would, so a server that took it first is waited for instead).
 * Returns the process exit code: 1 when the job failed.
 */
export async function runEraseCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  out: Out,
  note: Out,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      'database-url': { type: 'string' },
      project: { type: 'string' },
      'user-id': { type: 'string' },
      'session-id': { type: 'string' },
      attribute: { type: 'string' },
      wait: { type: 'boolean' },
    },
  });
  if (positionals.length > 0) throw new UsageError(`erase takes no arguments but flags\n${ERASE_USAGE}`);
  const target = targetFrom(values);
  const handle = await openServerDatabase(values['database-url'], env, cwd, note);
  try {
    const { db, dialect } = handle;
    const project = await projectOf(db, values.project);
    const row = await db.transaction().execute(async (tx) => {
      const queued = await queueErasure(
        tx,
        systemClock,
        { tenantId: project.tenantId, projectId: project.id },
        target,
        'cli',
      );
      await recordAudit(tx, systemClock, {
        tenantId: project.tenantId,
        projectId: project.id,
        actor: { kind: 'system', id: 'cli', label: 'cli' },
        operation: 'POST /control-plane/erasures',
        target: { type: 'erasure', id: queued.id },
        changes: { after: { target: jobOf(queued).target } },
        address: null,
        status: 202,
      });
      return queued;
    });
    out(describe(jobOf(row)));
    if (!values.wait) return 0;
    const worker = startErasureWorker({ db, dialect, clock: systemClock, log: note }, { pollMs: WAIT_POLL_MS });
    try {
      for (;;) {
        const job = jobOf(await findErasure(db, project.id, row.id));
        if (job.status === 'done' || job.status === 'failed') {
          out(describe(job));
          return job.status === 'done' ? 0 : 1;
        }
        await wait(WAIT_POLL_MS);
      }
    } finally {
      await worker.stop();
    }
  } finally {
    await handle.close();
  }
}
