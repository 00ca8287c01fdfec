export { svcBuild, type SvcBuildOptions } from './plugin';
export { debugIdFor, DEBUG_ID_PATTERN } from './core/debug-id';
export { debugIdSnippet, injectFile, type InjectedFile } from './core/inject';
export { findJsFiles } from './core/scan';
export { MAX_REQUEST_BYTES, uploadSourceMaps, type StoredMap, type UploadOptions } from './core/upload';
export { removeMaps } from './core/remove-maps';
export { processOutput, summarize, type ProcessOptions, type ProcessResult } from './core/process';
