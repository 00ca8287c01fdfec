import { parseArgs } from 'node:util';
import { systemClock } from '../clock';
import { loadConfig } from '../config';
import { DEFAULT_LIMITS, LIMIT_SIGNALS, MAX_LIMIT, UNIT_TEXT, type LimitSignal } from '../limits/signals';
import { changeProblem, changeProjectLimits, effectiveLimits, projectLimits, type LimitsChange } from '../limits/store';
import { openServerDatabase } from './database';
import { projectOf, UsageError } from './resolve';

export const LIMITS_USAGE = `Ingest limits (docs/governance.md, "Limits"; on the server's database, as the commands above):
  svc-server limits show [--project ID|NAME]
  svc-server limits set [--project ID|NAME] --spans rate=2000,burst=20000,daily=5000000 --replay-bytes daily=default ...
      a project's limits per signal (${LIMIT_SIGNALS.map((s) => `--${s.replace('_', '-')}`).join(', ')}): rate (units a
      second per ingest key), burst (units a key may send at once) and daily (units per UTC day); 0 turns a limit off,
      default goes back to the server's (SVC_LIMIT_<SIGNAL>, read from this environment by show). Running servers
      apply a change within 5 s.`;

type Out = (line: string) => void;
const flagOf = (signal: LimitSignal) => signal.replace('_', '-');

/** `rate=2000,daily=default` → `{ rate: 2000, daily: null }`, naming the flag and part that is wrong. */
function valuesOf(signal: LimitSignal, raw: string): NonNullable<LimitsChange[LimitSignal]> {
  const values: NonNullable<LimitsChange[LimitSignal]> = {};
  for (const part of raw.split(',')) {
    const match = /^(rate|burst|daily)=(\d{1,16}|default)$/.exec(part.trim());
    if (!match || Number(match[2]) > MAX_LIMIT)
      throw new UsageError(
        `--${flagOf(signal)}: "${part}" is not rate=<n>, burst=<n> or daily=<n> (n up to ${MAX_LIMIT}, or default)`,
      );
    values[match[1] as 'rate'] = match[2] === 'default' ? null : Number(match[2]);
  }
  return values;
}

/**
 * Runs `limits show` or `limits set`: a project's ingest limits, read or changed on the server's database. Returns the
 * process exit code.
 */
export async function runLimitsCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  out: Out,
  note: Out,
): Promise<number> {
  const signalFlags = Object.fromEntries(LIMIT_SIGNALS.map((s) => [flagOf(s), { type: 'string' as const }]));
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: { 'database-url': { type: 'string' }, project: { type: 'string' }, ...signalFlags },
  });
  const [action, ...extra] = positionals;
  if ((action !== 'show' && action !== 'set') || extra.length > 0)
    throw new UsageError(`usage: limits show | limits set [options]\n${LIMITS_USAGE}`);
  const given = values as Record<string, string | undefined>;
  const change: LimitsChange = {};
  for (const signal of LIMIT_SIGNALS) {
    const raw = given[flagOf(signal)];
    if (raw !== undefined) change[signal] = valuesOf(signal, raw);
  }
  if (action === 'show' && Object.keys(change).length > 0)
    throw new UsageError('limits show takes no signal flags: limits set changes them');
  if (action === 'set' && Object.keys(change).length === 0)
    throw new UsageError(`limits set needs at least one of ${LIMIT_SIGNALS.map((s) => `--${flagOf(s)}`).join(', ')}`);
  const config = loadConfig([], env, cwd);
  const defaults = config.limits ?? DEFAULT_LIMITS;
  const handle = await openServerDatabase(given['database-url'], env, cwd, note);
  try {
    const project = await projectOf(handle.db, given.project);
    const own = await projectLimits(handle.db, project.id);
    if (action === 'set') {
      const refused = changeProblem(defaults, own, change, config.bodyLimit);
      if (refused) throw new UsageError(`--${flagOf(refused.signal)}: ${refused.problem}`);
      await changeProjectLimits(handle.db, systemClock, project.id, change, 'cli');
    }
    const mine = await projectLimits(handle.db, project.id);
    out(`project ${project.name} (${project.id})`);
    for (const signal of LIMIT_SIGNALS) {
      const l = effectiveLimits(defaults, mine)[signal];
      const from = mine[signal] ? `project's own: ${Object.keys(mine[signal]).join(', ')}` : 'server default';
      out(`  ${signal.padEnd(15)} rate ${l.rate}/s, burst ${l.burst}, daily ${l.daily} ${UNIT_TEXT[signal]} (${from})`);
    }
    return 0;
  } finally {
    await handle.close();
  }
}
