/**
 * Name and version reported by the SDK (e.g. as `telemetry.sdk.name`/`telemetry.sdk.version` resource attributes).
 *
 * The build (rollup.config.mjs, plugin `sdk-version`) replaces `SDK_VERSION` with the version in package.json, so it
 * cannot drift from what was published; the value below is only seen when running from source, as in unit tests.
 */
export const SDK_NAME = '@svc/browser';
export const SDK_VERSION: string = '0.0.0-source';
