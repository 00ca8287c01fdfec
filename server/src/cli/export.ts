import { createWriteStream, mkdirSync } from 'node:fs';
import { once } from 'node:events';
import { join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { checkExport, EXPORT_SIGNALS, exportLines, type ExportQuery, type ExportSignal } from '../export/lines';
import { resumeFile } from '../export/resume';
import { DomainError } from '../shared/domain-errors';
import { parseTime, TIME_FORMAT } from '../shared/time';
import { openServerDatabase } from './database';
import { projectOf, UsageError } from './resolve';

export const EXPORT_USAGE = `Export (docs/governance.md, "Export"; on the server's database, as the commands above):
  svc-server export [--project ID|NAME] [--from TIME] [--to TIME] [--signal ${EXPORT_SIGNALS.join(',')}]
                    [--out DIR [--resume] | --cursor CURSOR] [--page-size N]
      the project's records from --from (inclusive) to --to (exclusive), oldest first, as JSON lines: OTLP/JSON export
      requests (spans, logs, metrics) and replay chunks with their rrweb events; on stdout, or one <signal>.jsonl per
      signal in DIR. --resume goes on where the files in DIR stop; --cursor (one signal) after a line's "cursor".`;

type Out = (line: string) => void;

function timeFlag(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const ms = parseTime(raw);
  if (ms === undefined) throw new UsageError(`--${name} must be ${TIME_FORMAT} (got "${raw}")`);
  return ms;
}

function signalsFlag(raw: string | undefined): ExportSignal[] {
  if (raw === undefined) return [...EXPORT_SIGNALS];
  const signals = raw.split(',').map((s) => s.trim());
  const wrong = signals.filter((s) => !(EXPORT_SIGNALS as readonly string[]).includes(s));
  if (wrong.length > 0 || signals.length === 0)
    throw new UsageError(`--signal takes a list of ${EXPORT_SIGNALS.join(', ')} (got "${raw}")`);
  return [...new Set(signals)] as ExportSignal[];
}

/** Writes every line to `stream`, waiting whenever it is full: a page is read only once the last one is written. */
async function writeLines(lines: AsyncIterable<string>, stream: Writable): Promise<number> {
  let count = 0;
  for await (const line of lines) {
    count += 1;
    if (!stream.write(line)) await once(stream, 'drain');
  }
  return count;
}

/** `svc-server export …`: a project's records as JSON lines, on stdout or into files. Returns the exit code. */
export async function runExportCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  stdout: Writable,
  note: Out,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      'database-url': { type: 'string' },
      project: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      signal: { type: 'string' },
      out: { type: 'string' },
      resume: { type: 'boolean', default: false },
      cursor: { type: 'string' },
      'page-size': { type: 'string' },
    },
  });
  if (positionals.length > 0) throw new UsageError(`export takes no arguments but flags\n${EXPORT_USAGE}`);
  const signals = signalsFlag(values.signal);
  const range = { from: timeFlag('from', values.from), to: timeFlag('to', values.to) };
  if (values.resume && values.out === undefined) throw new UsageError('--resume goes on with the files of --out DIR');
  if (values.cursor !== undefined && (signals.length !== 1 || values.out !== undefined))
    throw new UsageError('--cursor resumes one signal on stdout: pass --signal with one of them, and no --out');
  const pageSize = values['page-size'] === undefined ? undefined : Number(values['page-size']);
  try {
    for (const signal of signals) checkExport(signal, values.cursor, pageSize);
  } catch (error) {
    if (error instanceof DomainError) throw new UsageError(error.message.replace('page_size', '--page-size'));
    throw error;
  }
  const handle = await openServerDatabase(values['database-url'], env, cwd, note);
  try {
    const project = await projectOf(handle.db, values.project);
    const query = (signal: ExportSignal, cursor: string | undefined): ExportQuery => ({
      projectId: project.id,
      signal,
      ...(range.from !== undefined && { from: range.from }),
      ...(range.to !== undefined && { to: range.to }),
      ...(cursor !== undefined && { cursor }),
      ...(pageSize !== undefined && { pageSize }),
    });
    if (values.out === undefined) {
      for (const signal of signals) await writeLines(exportLines(handle.db, query(signal, values.cursor)), stdout);
      return 0;
    }
    const dir = resolve(cwd, values.out);
    mkdirSync(dir, { recursive: true });
    for (const signal of signals) {
      const path = join(dir, `${signal}.jsonl`);
      const cursor = values.resume ? await resumeFile(path) : undefined;
      const file = createWriteStream(path, { flags: values.resume ? 'a' : 'w' });
      const count = await writeLines(exportLines(handle.db, query(signal, cursor)), file);
      file.end();
      await once(file, 'finish');
      note(`${signal}: ${count} lines ${cursor ? 'appended to' : 'written to'} ${path}`);
    }
    return 0;
  } finally {
    await handle.close();
  }
}
