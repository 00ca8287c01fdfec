import { createRuleEvaluator, type RuleEvaluator } from './alerts/evaluate/evaluator';
import type { EvaluationOptions } from './alerts/evaluate/options';
import { createApp } from './app';
import { systemClock, type Clock } from './clock';
import type { ServerConfig } from './config';
import { startCheckpointer } from './db/checkpoint';
import type { CostServices } from './cost/services';
import { startCost, type CostOptions } from './cost/start';
import { openDatabase, type DatabaseHandle } from './db/connect';
import { migrateToLatest } from './db/migrate';
import type { DemoKeys } from './demo/routes';
import { checkDemoSdk } from './demo/sdk-file';
import type { Services } from './http/env';
import { createRefusalCounter } from './ingest/refusals/counter';
import { notifySpike } from './limits/notify-spike';
import { startLimits, type LimitServices } from './limits/start';
import { openTelemetryWriter, type TelemetryWriter } from './ingest/writer';
import { createDetector } from './incidents/detect/detector';
import { startErasureWorker, type ErasureWorker, type ErasureWorkerOptions } from './erasure/worker';
import type { DetectionOptions } from './incidents/detect/thresholds';
import { scheduleDetection } from './incidents/detect/schedule';
import type { NotifyServices } from './notify/services';
import { startNotifications, type NotifyOptions } from './notify/start';
import { scheduleRetention } from './retention/job';
import { scheduleVitalRollups } from './vitals/rollup/job';
import { attachReplayStorage } from './replay/attach';
import { chunkStoreOf, DATABASE_CHUNKS } from './replay/chunk-store';
import { scheduleChunkSweep } from './replay/sweep';
import { retentionDefaults, type RetentionDefaults } from './retention/signals';
import { secretKeyFor } from './secrets/key-file';
import { createSymbolicator } from './sourcemaps/symbolicate';
import { createSecretBox, type SecretBox } from './secrets/secret-box';
import { bootstrapIfEmpty, type Bootstrap } from './projects/bootstrap';
import { closeServer, listen } from './http/listen';
import { createMailer } from './auth/mailer';
import { setupLinkIfNoOwner } from './auth/setup-link';

export interface StartOptions extends Partial<ServerConfig> {
  clock?: Clock;
  log?: (line: string) => void;
  /**
   * With `demoSdk`: the ingest key and app the demo page uses, asked at each page view (the CLI learns them after
   * start). Default: the keys bootstrapped on this start, if any.
   */
  demoKeys?: () => DemoKeys | null;
  /** Outbox tuning (poll interval, concurrency, lease), for tests and benchmarks. */
  outbox?: NotifyOptions['outbox'];
  /**
   * Incident detection thresholds (docs/incidents.md), or false for no detection schedule: neither the detector nor the
   * alert rule evaluator runs (tests that run them themselves).
   */
  detection?: Partial<DetectionOptions> | false;
  /** Alert rule evaluation tuning (docs/alerts.md, "Evaluation"), for tests. */
  alertEvaluation?: Partial<EvaluationOptions>;
  /** Cost tracking: cloud API endpoints and sync worker tuning (docs/cost.md). */
  cost?: CostOptions;
  /** Deletion jobs' poll and lease (docs/governance.md, "Deletion on request"), for tests. */
  erasure?: ErasureWorkerOptions;
}

export interface RunningServer {
  /** Base URL the server listens on, e.g. http://127.0.0.1:4318. */
  url: string;
  port: number;
  publicUrl: string;
  database: DatabaseHandle;
  /** Keys and names created on first start with an empty database; null otherwise. */
  bootstrap: Bootstrap | null;
  /** While nobody has an account: the one-time link creating the first owner (a new one each start); else null. */
  setupLink: string | null;
  /** URL of the SDK demo page when the server serves it (`demoSdk`), for the start-up banner. */
  demoUrl?: string;
  /** How ingest writes rows (e.g. `sqlite, writer thread`), for the start-up banner. */
  readonly ingestWriter: string;
  /** Incidents and the notification outbox of this process. */
  notify: NotifyServices;
  /** Cost connections and the sync worker of this process. */
  cost: CostServices;
  /** Ingest limits, usage counts and spike protection of this process. */
  limits: LimitServices;
  /** The deletion jobs' worker of this process. */
  erasures: ErasureWorker;
  /** The alert rule evaluator of this process (run by the detection schedule). */
  alerts: RuleEvaluator;
  close(): Promise<void>;
}

/** Opens and migrates the database, bootstraps an empty one, and serves HTTP until `close()`. */
export async function startServer(options: StartOptions = {}): Promise<RunningServer> {
  const clock = options.clock ?? systemClock;
  const log = options.log ?? ((line: string) => console.log(line));
  const demoSdk = options.demoSdk === undefined ? undefined : checkDemoSdk(options.demoSdk);
  if (demoSdk && 'problem' in demoSdk) throw new Error(`demo SDK: ${demoSdk.problem}`);
  const database = await attachReplayStorage(openDatabase(options.databaseUrl), options.replayStorage);
  let writer: TelemetryWriter | undefined;
  let notify: NotifyServices | undefined;
  let cost: CostServices | undefined;
  let erasures: ErasureWorker | undefined;
  try {
    await migrateToLatest(database);
    const bootstrap = await bootstrapIfEmpty(database.db, clock, database.dialect);
    writer = openTelemetryWriter(database, log);
    const services = servicesOf(database, writer, clock, log, options, () => notify?.outbox.wake());
    const retention = retentionDefaults(options.retentionDays ?? 30, options.retentionBySignal);
    const box = createSecretBox(
      options.secretKey ?? secretKeyFor(database.dialect === 'sqlite' ? database.displayUrl : undefined),
    );
    cost = startCost(database, clock, box, log, options.cost);
    notify = startNotifications(database, clock, () => services.publicUrl, log, {
      box,
      costImpact: cost.impactOf,
      allowPrivateTargets: options.allowPrivateTargets,
      outbox: options.outbox,
    });
    erasures = startErasureWorker({ db: database.db, dialect: database.dialect, clock, log }, options.erasure);
    const demo = demoSdk ? { sdkPath: demoSdk.path, keys: options.demoKeys ?? bootstrapKeys(bootstrap) } : undefined;
    const app = createApp(services, {
      corsOrigins: options.corsOrigins ?? '*',
      demo,
      notify,
      cost,
      ai: options.ai,
      oidc: options.oidc,
      retention,
      erasures,
      alertMinWindowSeconds: options.alertMinWindowSeconds,
    });
    const { server, port, url } = await listen(app.fetch, options.host ?? '127.0.0.1', options.port ?? 4318);
    services.publicUrl = options.publicUrl ?? url;
    const schedules = startSchedules(database, services, { notify, box, retention }, options);
    return {
      url,
      port,
      publicUrl: services.publicUrl,
      demoUrl: demo ? `${services.publicUrl}/demo/` : undefined,
      database,
      bootstrap,
      setupLink: await setupLinkIfNoOwner(database.db, clock, services.publicUrl),
      get ingestWriter() {
        return services.writer.kind;
      },
      notify,
      cost,
      erasures,
      alerts: schedules.alerts,
      limits: services.limits,
      async close() {
        await schedules.stop();
        // A job cut short stays running under its lease: the next start (or another replica) takes it over.
        await erasures!.stop();
        // Attempts in flight finish and are recorded; what is due later stays in the outbox for the next start.
        await notify!.outbox.stop();
        // A sync cut short changed nothing (each period is replaced in one transaction); it runs again at next start.
        await cost!.sync.stop();
        await closeServer(server);
        // Requests still waiting for their commit get it before the database closes, and so do the refusals counted.
        await services.writer.close();
        await services.refusals.stop();
        await services.limits.stop();
        await schedules.checkpointer?.stop();
        await database.close();
      },
    };
  } catch (err) {
    // E.g. the port is taken: the writer thread, the outbox and the sync worker must not keep the process alive.
    await notify?.outbox.stop();
    await cost?.sync.stop();
    await erasures?.stop();
    await writer?.close();
    await database.close();
    throw err;
  }
}

/** The demo page's keys by default: those bootstrapped on this start, if any. */
const bootstrapKeys = (bootstrap: Bootstrap | null) => {
  const keys = bootstrap ? { ingestKey: bootstrap.ingestKey.key, appName: bootstrap.appName } : null;
  return () => keys;
};

/** What every route reads: the database, the writer, the clock, limits, the log, symbolication, refusal counts. */
function servicesOf(
  database: DatabaseHandle,
  writer: TelemetryWriter,
  clock: Clock,
  log: (line: string) => void,
  options: StartOptions,
  afterSpikes: () => void,
): Services {
  const services: Omit<Services, 'limits'> = {
    db: database.db,
    dialect: database.dialect,
    writer,
    clock,
    bodyLimit: options.bodyLimit ?? 10 * 1024 * 1024,
    publicUrl: options.publicUrl ?? '',
    log,
    symbolicator: createSymbolicator({ db: database.db }),
    refusals: createRefusalCounter(database.db, log),
    ...(options.mail ? { mailer: createMailer(options.mail) } : {}),
  };
  const limits = startLimits(database, clock, log, {
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.spikes ? { spikes: options.spikes } : {}),
    onSpike: (trx, spike) => notifySpike(trx, spike, services.publicUrl),
    afterSpikes,
  });
  return Object.assign(services, { limits });
}

/**
 * What runs on a schedule over the stored data: incident detection and alert rule evaluation (unless turned off), the
 * SQLite WAL checkpoints (for a file), the Web Vitals rollups and retention. `stop` ends detection, rollups and
 * retention; the checkpointer stops after
 * the last write.
 */
function startSchedules(
  database: DatabaseHandle,
  services: Services,
  settings: {
    notify: NotifyServices;
    box: SecretBox;
    retention: RetentionDefaults;
  },
  {
    detection,
    alertEvaluation,
    detectionIntervalMs,
  }: Pick<StartOptions, 'detection' | 'alertEvaluation' | 'detectionIntervalMs'>,
) {
  const { clock, log } = services;
  const alerts = createRuleEvaluator({
    db: database.db,
    clock,
    commands: settings.notify.incidents,
    publicUrl: services.publicUrl,
    log,
    // Rules fall due on the schedule's ticks (alerts/evaluate/options.ts).
    options: { ...(detectionIntervalMs === undefined ? {} : { tickMs: detectionIntervalMs }), ...alertEvaluation },
  });
  const stopDetection =
    detection === false
      ? async () => undefined
      : scheduleDetection(
          [
            {
              name: 'incident detection',
              runOnce: detectorOf(services, settings.notify, settings.box, detection).runOnce,
            },
            { name: 'alert rule evaluation', runOnce: alerts.runOnce },
          ],
          log,
          detectionIntervalMs,
        );
  const checkpointer = database.sqlite && !database.sqlite.memory ? startCheckpointer(database.sqlite, log) : undefined;
  // Scheduled even when the server keeps everything: a project may set days of its own.
  const stopRetention = scheduleRetention(database.db, clock, settings.retention, log);
  // Web Vitals over days read hourly and daily rollups (vitals/rollup/job.ts).
  const stopRollups = scheduleVitalRollups(database.db, clock, log);
  // Payloads in a bucket: the objects no row names are swept (replay/sweep.ts).
  const inBucket = chunkStoreOf(database.db) !== DATABASE_CHUNKS;
  const stopSweep = inBucket ? scheduleChunkSweep(database.db, clock, log) : async () => undefined;
  return {
    checkpointer,
    alerts,
    async stop() {
      await stopSweep();
      await stopRollups();
      await stopRetention();
      await stopDetection();
    },
  };
}

/** Incident detection over this process's data, opening incidents through the notifications' commands. */
function detectorOf(
  services: Services,
  notify: NotifyServices,
  box: SecretBox,
  detection: Partial<DetectionOptions> | undefined,
) {
  return createDetector({
    db: services.db,
    clock: services.clock,
    commands: notify.incidents,
    publicUrl: services.publicUrl,
    box,
    symbolicator: services.symbolicator,
    options: detection,
  });
}
