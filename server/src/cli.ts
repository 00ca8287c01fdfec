#!/usr/bin/env node
import { CONFIG_OPTIONS, ConfigError, loadConfig } from './config';
import { ALERTS_USAGE, runAlertsCommand } from './cli/alerts';
import { BACKUP_USAGE, runBackupCommand, runRestoreCommand } from './cli/backup';
import { ADMIN_GROUPS, ADMIN_USAGE, runAdminCommand } from './cli/commands';
import { ERASE_USAGE, runEraseCommand } from './cli/erase';
import { EXPORT_USAGE, runExportCommand } from './cli/export';
import { UsageError } from './cli/resolve';
import { recallKeys, rememberKeys } from './cli/remembered-keys';
import { LIMITS_USAGE, runLimitsCommand } from './cli/limits';
import { RETENTION_USAGE, runRetentionCommand } from './cli/retention';
import { runSourcemapsCommand, SOURCEMAPS_USAGE } from './cli/sourcemaps';
import { systemClock } from './clock';
import { needsMemoryRelaunch, relaunchWithMemorySettings, watchLauncher } from './runtime/memory-relaunch';

const USAGE = `Usage: svc-server [start] [options]
Starts the reference server: OTLP and replay ingest plus the control-plane API.

Options (flag, or environment variable):
${CONFIG_OPTIONS.map(([flag, envName, text]) => `  --${flag.padEnd(15)} ${envName.padEnd(19)} ${text}`).join('\n')}

${ADMIN_USAGE}

${RETENTION_USAGE}

${LIMITS_USAGE}

${SOURCEMAPS_USAGE}

${ALERTS_USAGE}

${BACKUP_USAGE}

${EXPORT_USAGE}

${ERASE_USAGE}`;

async function start(argv: string[]): Promise<void> {
  const config = loadConfig(argv, process.env);
  // Loaded only to start: the server's module graph (routes, schemas, OpenAPI) is most of a command's start-up time.
  const [{ startServer }, { chunkStoreOf }] = await Promise.all([import('./server'), import('./replay/chunk-store')]);
  // The demo page shows the keys printed below, known only once the server has started.
  let keys: Awaited<ReturnType<typeof recallKeys>> = null;
  const server = await startServer({ ...config, demoKeys: () => keys });
  const { database } = server;
  keys = server.bootstrap
    ? {
        ingestKey: server.bootstrap.ingestKey.key,
        controlKey: server.bootstrap.controlKey.key,
        appName: server.bootstrap.appName,
      }
    : null;
  if (keys) rememberKeys(database, keys);
  else keys = await recallKeys(database, database.db, systemClock);

  const lines = [
    `svc reference server listening on ${server.url}`,
    `  ingest URL:   ${server.publicUrl}  (POST /otlp/v1/traces|logs|metrics, /ingest/replay/chunk|recipes)`,
    `  control URL:  ${server.publicUrl}/control-plane  (Authorization: Bearer <control key>)`,
    `  API:          ${server.publicUrl}/docs/api  (reference; the document: /openapi.json)`,
    `  database:     ${database.displayUrl} (${server.ingestWriter})`,
  ];
  const chunks = chunkStoreOf(database.db).where;
  if (chunks !== 'database') lines.push(`  replays:      chunk payloads in ${chunks}`);
  if (server.demoUrl)
    lines.push(`  demo:         ${server.demoUrl}  (a page using the browser SDK against this server)`);
  // People sign in as themselves: no key rides in the console's address (docs/teams.md, "First start").
  lines.push(
    `  console:      ${server.publicUrl}/  (sign in: sessions and replays, issues, traces, Web Vitals, incidents, cost)`,
  );
  if (server.setupLink) lines.push(`  set-up:       ${server.setupLink}  (creates the first owner; one use)`);
  if (keys) {
    lines.push(
      `  app:          ${keys.appName}  (serviceName for the SDK; add more with: svc-server apps create NAME)`,
    );
    lines.push(`  ingest key:   ${keys.ingestKey}`);
    lines.push(`  control key:  ${keys.controlKey}`);
    if (!server.bootstrap)
      lines.push('  (keys created on first start; list or add keys with: svc-server keys list|create)');
    else if (database.dialect === 'postgres') lines.push('  (shown once: only their hashes are stored)');
  } else {
    lines.push('  keys:         see `svc-server keys list`; create one with `svc-server keys create --scope ingest`');
  }
  console.log(lines.join('\n'));

  let stopping = false;
  const stop = (reason: string) => {
    // A terminal's Ctrl-C reaches both this process and its launcher, which passes it on: the second is the same stop.
    if (stopping) return;
    stopping = true;
    console.log(`${reason}: shutting down`);
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  watchLauncher(() => stop('launcher exited'));
}

async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  const isHelp = (arg: string | undefined) => arg === '--help' || arg === '-h' || arg === 'help';
  // `svc-server start --help` asks for the same usage as `svc-server --help`.
  if (isHelp(first) || (first === 'start' && isHelp(rest[0]))) {
    console.log(USAGE);
    return 0;
  }
  if (first !== undefined && ADMIN_GROUPS.includes(first)) {
    return runAdminCommand(
      argv,
      process.env,
      process.cwd(),
      (l) => console.log(l),
      (l) => console.error(l),
    );
  }
  if (first === 'retention') {
    const say = (l: string) => console.log(l);
    return runRetentionCommand(rest, process.env, process.cwd(), say, (l) => console.error(l));
  }
  const note = (l: string) => console.error(l);
  if (first === 'limits') return runLimitsCommand(rest, process.env, process.cwd(), (l) => console.log(l), note);
  if (first === 'backup') return runBackupCommand(rest, process.env, process.cwd(), (l) => console.log(l), note);
  if (first === 'restore') return runRestoreCommand(rest, process.env, process.cwd(), (l) => console.log(l), note);
  if (first === 'erase') return runEraseCommand(rest, process.env, process.cwd(), (l) => console.log(l), note);
  if (first === 'export') return runExportCommand(rest, process.env, process.cwd(), process.stdout, note);
  if (first === 'sourcemaps') return runSourcemapsCommand(rest, process.env, (l) => console.log(l));
  if (first === 'alerts') return runAlertsCommand(rest, process.env, (l) => console.log(l));
  if (needsMemoryRelaunch()) return relaunchWithMemorySettings();
  await start(first === 'start' ? rest : argv);
  return -1; // keeps running
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err: unknown) => {
    if (
      err instanceof UsageError ||
      err instanceof ConfigError ||
      (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
    ) {
      console.error(`svc-server: ${(err as Error).message}`);
      process.exit(2);
    }
    console.error(`svc-server: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
