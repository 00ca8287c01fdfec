import { parseArgs } from 'node:util';
import { systemClock } from '../clock';
import { loadConfig } from '../config';
import { effectiveRetention } from '../retention/effective';
import { MAX_RETENTION_DAYS, PROJECT_SIGNALS, retentionDefaults, signalVariable } from '../retention/signals';
import { changeProjectRetention, projectRetention, type RetentionChange } from '../retention/store';
import { openServerDatabase } from './database';
import { projectOf, UsageError } from './resolve';

export const RETENTION_USAGE = `Retention (docs/server.md, "Retention"; on the server's database, as the commands above):
  svc-server retention show [--project ID|NAME]
  svc-server retention set [--project ID|NAME] --replays 14 --logs 30 --metrics default ...
      a project's days per signal (${PROJECT_SIGNALS.join(', ')}); 0 keeps for ever, default goes back to the
      server's (SVC_RETENTION_<SIGNAL>_DAYS, else SVC_RETENTION_DAYS, read from this environment by show).`;

type Out = (line: string) => void;

/** `--replays 14` → 14, `--metrics default` → null (the server's default again). */
function changeOf(values: Record<string, string | undefined>): RetentionChange {
  const change: RetentionChange = {};
  for (const signal of PROJECT_SIGNALS) {
    const raw = values[signal];
    if (raw === undefined) continue;
    if (raw === 'default') change[signal] = null;
    else if (/^\d{1,5}$/.test(raw) && Number(raw) <= MAX_RETENTION_DAYS) change[signal] = Number(raw);
    else throw new UsageError(`--${signal} must be days from 0 to ${MAX_RETENTION_DAYS}, or default (got "${raw}")`);
  }
  if (Object.keys(change).length === 0)
    throw new UsageError(`retention set needs at least one of ${PROJECT_SIGNALS.map((s) => `--${s}`).join(', ')}`);
  return change;
}

/**
 * Runs `retention show` or `retention set`: a project's retention per signal, read or changed on the server's database
 * (the running server reads it at its next retention run). Returns the process exit code.
 */
export async function runRetentionCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  out: Out,
  note: Out,
): Promise<number> {
  const signalFlags = Object.fromEntries(PROJECT_SIGNALS.map((s) => [s, { type: 'string' as const }]));
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: { 'database-url': { type: 'string' }, project: { type: 'string' }, ...signalFlags },
  });
  const [action, ...extra] = positionals;
  if ((action !== 'show' && action !== 'set') || extra.length > 0)
    throw new UsageError(`usage: retention show | retention set [options]\n${RETENTION_USAGE}`);
  const given = values as Record<string, string | undefined>;
  if (action === 'show' && PROJECT_SIGNALS.some((s) => given[s] !== undefined))
    throw new UsageError('retention show takes no signal flags: retention set changes them');
  const change = action === 'set' ? changeOf(given) : null;
  const config = loadConfig([], env, cwd);
  const defaults = retentionDefaults(config.retentionDays, config.retentionBySignal);
  const handle = await openServerDatabase(given['database-url'], env, cwd, note);
  try {
    const project = await projectOf(handle.db, given.project);
    if (change) await changeProjectRetention(handle.db, systemClock, project.id, change, 'cli');
    out(`project ${project.name} (${project.id})`);
    for (const s of effectiveRetention(defaults, await projectRetention(handle.db, project.id))) {
      const kept = s.days === 0 ? 'for ever' : `${s.days} days`;
      const from =
        s.source === 'project'
          ? `project's own (server default ${s.server_days})`
          : `server default (${config.retentionBySignal?.[s.signal] === undefined ? 'SVC_RETENTION_DAYS' : signalVariable(s.signal)})`;
      out(`  ${s.signal.padEnd(9)} ${kept.padEnd(10)} ${from}${s.settable ? '' : ', per organisation'}`);
    }
    return 0;
  } finally {
    await handle.close();
  }
}
