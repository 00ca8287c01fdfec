import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startServer } from '../../server/src/index';

/** What one run of the CLI printed and how it exited. */
export interface CliRun {
  code: number | null;
  out: string;
  err: string;
}

/**
 * For a describe block: the shipped `svc-server` bin (built by the global setup) running `command`, over a SQLite file
 * a server has started on (so it is migrated and bootstrapped), with `SVC_DATABASE_URL` naming it. The file's folder is
 * removed after the block.
 */
export function adminCliOnServerDatabase(command: string): (args: string[], env?: Record<string, string>) => CliRun {
  const cli = resolve(__dirname, '../../server/dist/cli.js');
  const dir = mkdtempSync(join(tmpdir(), `svc-${command}-cli-`));
  const databaseUrl = join(dir, 'svc.db');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  beforeAll(async () => {
    const server = await startServer({ port: 0, databaseUrl, log: () => undefined, detection: false });
    await server.close();
  });
  return (args, env = {}) => {
    const res = spawnSync(process.execPath, [cli, command, ...args], {
      encoding: 'utf8',
      env: { ...process.env, SVC_DATABASE_URL: databaseUrl, ...env },
    });
    return { code: res.status, out: res.stdout, err: res.stderr };
  };
}
