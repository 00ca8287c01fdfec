import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import SQLite from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { runBackupCommand, runRestoreCommand } from '../../server/src/cli/backup';
import { runExportCommand } from '../../server/src/cli/export';
import { startServer } from '../../server/src/index';
import { API_KEY_HEADER } from '../../wire/paths';
import { databaseKinds, type DatabaseKind } from '../support/databases';
import { missingTools } from '../support/missing-tool';
import { str } from '../support/otlp';
import { createLastingDatabase, runServerCli, startServerProcess, type ServerProcess } from '../support/server-process';
import { eventually } from '../support/until';

/**
 * Backup and restore (issue 32, docs/governance.md "Backup and restore") as an operator runs them: a backup taken by the
 * built `svc-server backup` while ingest goes on through the HTTP API of a built `svc-server start` holds every record acknowledged before the
 * backup began, once; restored into a fresh database (the restore command's
 * module, run in this process like the other commands after it), a server started on it serves them. SQLite with the online
 * backup, PostgreSQL with pg_dump and pg_restore. Then the refusals, and the CLI export resumed after an interruption.
 */
const havePgTools = (() => {
  try {
    execFileSync('pg_dump', ['--version']);
    return true;
  } catch {
    return false;
  }
})();
const kinds: DatabaseKind[] = (await databaseKinds()).filter(
  (kind) =>
    kind === 'sqlite' || !missingTools('PostgreSQL backup', havePgTools ? [] : ['pg_dump'], 'postgresql-client'),
);

const dir = mkdtempSync(join(tmpdir(), 'svc-backup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const WRITERS = 4;
const RECORDS = 5;

/** Ingest that goes on until stopped: each request a batch of log records named by its number, acknowledged or not. */
function sustainedIngest(server: ServerProcess) {
  const acked: number[] = [];
  let next = 0;
  let stopped = false;
  let inFlight = 0;
  const post = async (n: number) => {
    const body = {
      resourceLogs: [
        {
          resource: { attributes: [str('service.name', 'web-app')] },
          scopeLogs: [
            {
              scope: { name: 'backup-test' },
              logRecords: Array.from({ length: RECORDS }, (_, k) => ({
                timeUnixNano: `${Date.now()}000000`,
                severityNumber: 9,
                body: { stringValue: `request-${n}-record-${k}` },
                attributes: [str('log.record.uid', `${n}-${k}`)],
              })),
            },
          ],
        },
      ],
    };
    const res = await fetch(`${server.url}/otlp/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [API_KEY_HEADER]: server.ingestKey! },
      body: JSON.stringify(body),
    });
    await res.text();
    if (res.status === 200) acked.push(n);
  };
  const writer = async () => {
    while (!stopped) {
      inFlight += 1;
      await post(next++).finally(() => (inFlight -= 1));
    }
  };
  const running = Promise.all(Array.from({ length: WRITERS }, writer));
  return {
    acked: () => [...acked],
    inFlight: () => inFlight,
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}

/** Every log record's body in the export of `server`'s project (the export reads the restored tables whole). */
async function exportedBodies(url: string, controlKey: string): Promise<string[]> {
  const res = await fetch(`${url}/control-plane/export?signal=logs`, {
    headers: { authorization: `Bearer ${controlKey}` },
  });
  expect(res.status).toBe(200);
  const bodies: string[] = [];
  for (const line of (await res.text()).split('\n').filter(Boolean)) {
    const request = JSON.parse(line) as {
      resourceLogs: Array<{ scopeLogs: Array<{ logRecords: Array<{ body: { stringValue: string } }> }> }>;
    };
    for (const r of request.resourceLogs)
      for (const s of r.scopeLogs) for (const rec of s.logRecords) bodies.push(rec.body.stringValue);
  }
  return bodies;
}

const quiet = () => undefined;
/** The commands' own modules, run in this process: what the built bin runs, without a process start for each. */
const restore = (...args: string[]) => runRestoreCommand(args, {}, dir, quiet, quiet);
const backupTo = (...args: string[]) => runBackupCommand(args, {}, dir, quiet, quiet);

async function exportOf(...args: string[]): Promise<string> {
  let text = '';
  const stdout = new PassThrough().on('data', (chunk: Buffer) => (text += chunk.toString()));
  await runExportCommand(args, {}, dir, stdout, quiet);
  return text;
}

/**
 * On the restored database: what restore refuses (a database with data unless forced, a file that is no backup, a
 * backup of a newer version), a backup never overwriting a file, and `export --out` going on after an interruption.
 */
async function refusalsAndExport(kind: DatabaseKind, backup: string, target: string): Promise<void> {
  await expect(restore(backup, '--database-url', target)).rejects.toThrow(
    /holds (a database|tables) already: pass --force/,
  );
  await expect(backupTo(backup, '--database-url', target)).rejects.toThrow(/exists already: name a new file/);
  const notABackup = join(dir, `${kind}.txt`);
  writeFileSync(notABackup, 'hello');
  await expect(restore(notABackup, '--database-url', target, '--force')).rejects.toThrow(/is not an svc backup/);
  if (kind !== 'sqlite') return;

  await restore(backup, '--force', '--database-url', target);
  // A backup whose migrations this version does not know (made by a later one) is refused, and nothing is made.
  const newer = join(dir, 'newer.backup');
  await backupTo(newer, '--database-url', target);
  const file = new SQLite(newer);
  file.prepare("insert into kysely_migration values ('9999-from-the-future', '2030-01-01')").run();
  file.close();
  const fresh = join(dir, 'fresh', 'svc.db');
  await expect(restore(newer, '--database-url', fresh)).rejects.toThrow(
    /taken by a newer svc-server.*9999-from-the-future/,
  );
  expect(existsSync(fresh)).toBe(false);

  const out = join(dir, 'export');
  const flags = ['--signal', 'logs', '--page-size', '7', '--database-url', target];
  await exportOf(...flags, '--out', out);
  const whole = readFileSync(join(out, 'logs.jsonl'), 'utf8');
  expect(whole.split('\n').filter(Boolean).length).toBeGreaterThan(3);
  // Cut off in the middle of its third line, as an interrupted export leaves it.
  truncateSync(join(out, 'logs.jsonl'), whole.split('\n').slice(0, 2).join('\n').length + 1 + 40);
  await exportOf(...flags, '--out', out, '--resume');
  expect(readFileSync(join(out, 'logs.jsonl'), 'utf8')).toBe(whole);
  expect(await exportOf(...flags)).toBe(whole);
  await expect(exportOf('--signal', 'traces', '--database-url', target)).rejects.toThrow(
    /--signal takes a list of spans/,
  );
}

describe.each(kinds)('backup and restore (%s)', (kind) => {
  it('keeps every record acknowledged before the backup began, once, through a restore into a fresh database', async () => {
    const source = await createLastingDatabase(kind);
    const target = await createLastingDatabase(kind);
    const backup = join(dir, `${kind}.backup`);
    try {
      const server = await startServerProcess({ 'database-url': source.url });
      const ingest = sustainedIngest(server);
      await eventually('30 acknowledged ingest requests', async () => (ingest.acked().length >= 30 ? true : undefined));
      const before = ingest.acked();
      expect(ingest.inFlight()).toBeGreaterThan(0);
      const said = await runServerCli(['backup', backup, '--database-url', source.url]);
      expect(said).toContain(`backup written to ${backup}`);
      const atBackupEnd = ingest.acked().length;
      await eventually('more requests acknowledged after the backup', async () =>
        ingest.acked().length > atBackupEnd ? true : undefined,
      );
      await ingest.stop();
      const controlKey = server.controlKey!;
      await server.stop();

      // Only the backup's file is used from here on: the source is gone.
      await source.drop();
      await restore(backup, '--database-url', target.url);
      const restored = await startServer({ port: 0, databaseUrl: target.url, log: quiet });
      try {
        const bodies = await exportedBodies(restored.url, controlKey);
        expect(new Set(bodies).size, 'no record twice').toBe(bodies.length);
        const have = new Set(bodies);
        const lost = before.flatMap((n) =>
          Array.from({ length: RECORDS }, (_, k) => `request-${n}-record-${k}`).filter((b) => !have.has(b)),
        );
        expect(lost, 'acknowledged before the backup began but not restored').toEqual([]);
        // Every request's records together: a transaction is in the backup whole or not at all.
        expect(bodies.length % RECORDS).toBe(0);
      } finally {
        await restored.close();
      }

      await refusalsAndExport(kind, backup, target.url);
    } finally {
      await source.drop();
      await target.drop();
    }
  });
});
