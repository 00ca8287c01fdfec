/** Programmatic API of the svc reference server (what the CLI and the test suites use). */
export { startServer, type RunningServer, type StartOptions } from './server';
export { loadConfig, CONFIG_DEFAULTS, type ServerConfig } from './config';
export { createApp } from './app';
export { openDatabase, type DatabaseHandle } from './db/connect';
export { migrateToLatest } from './db/migrate';
export { applyRetention } from './retention/job';
export { rollUpVitals } from './vitals/rollup/job';
export { createKey, listKeys, revokeKey, type CreatedKey, type KeyInfo } from './projects/keys-store';
export { registerApp, addAlias, removeAlias, listApps } from './projects/apps-store';
export { createTenant, createProject } from './projects/store';
export type { Clock } from './clock';
export type { ErrorBody } from './http/errors';
export type * from './api-types';
