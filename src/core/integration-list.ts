import type { DebugLog } from './core';
import type { Integration, IntegrationCore, IntegrationsOption } from './integration';

/**
 * The integrations to start, from the defaults and the `integrations` option (see {@link IntegrationsOption}). One
 * integration per name, the later one (listing an integration with a default's name replaces the default); none that
 * another listed integration `replaces`; entries that are not `{ name, setup }` left out. Each of those is reported
 * as a debug warning, as is a function that throws or returns no array, which leaves the defaults in place.
 */
export function integrationList(
  defaults: readonly Integration[],
  option: IntegrationsOption | undefined,
  debug: DebugLog,
): Integration[] {
  const warn = (message: string, error?: unknown): void => debug.warn(`integrations: ${message}`, error);
  let listed: unknown;
  try {
    listed = typeof option === 'function' ? option([...defaults]) : [...defaults, ...(option || [])];
  } catch (error) {
    listed = error;
  }
  if (!Array.isArray(listed)) {
    // What the function threw or returned instead is printed with the warning.
    warn('the function must return an array; the default integrations are started', listed);
    listed = defaults;
  }
  const byName = new Map<unknown, Integration>();
  for (const entry of listed as readonly Partial<Integration>[]) {
    const name = entry && entry.name;
    if (typeof name !== 'string' || typeof entry!.setup !== 'function') {
      warn(
        `${typeof name === 'string' ? `"${name}"` : typeof entry} is not an integration ({ name, setup }); left out`,
      );
    } else {
      const earlier = byName.get(name);
      if (earlier && !defaults.includes(earlier)) warn(`"${name}" is listed twice; the later one is started`);
      byName.delete(name);
      byName.set(name, entry as Integration);
    }
  }
  for (const integration of byName.values()) {
    for (const name of integration.replaces || []) {
      if (byName.delete(name)) warn(`"${name}" is replaced by "${integration.name}"`);
    }
  }
  return [...byName.values()];
}

/**
 * Calls each integration's `setup`, in list order. One that throws is reported and the others still start: an
 * integration of the app's must not take the SDK down with it.
 */
export function setupIntegrations(list: readonly Integration[], core: IntegrationCore): void {
  for (const integration of list) {
    try {
      integration.setup(core);
    } catch (error) {
      core.debug.error(`integration "${integration.name}" could not start`, error);
    }
  }
}
