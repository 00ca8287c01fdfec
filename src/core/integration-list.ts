import type { DebugLog } from './core';
import type { Integration, IntegrationCore, IntegrationsOption } from './integration';

const nameOf = (entry: unknown): unknown => (entry as Integration | undefined)?.name;

const isIntegration = (entry: unknown): entry is Integration =>
  typeof nameOf(entry) === 'string' && typeof (entry as Integration).setup === 'function';

/**
 * The integrations to start, from the defaults and the `integrations` option (see {@link IntegrationsOption}). The
 * list keeps one integration per name, the later one, and none that another one `replaces`; entries that are not
 * integrations are left out. Each is reported as a debug warning, and a function that throws or returns no array
 * leaves the defaults in place.
 */
export function integrationList(
  defaults: readonly Integration[],
  option: IntegrationsOption | undefined,
  debug: DebugLog,
): Integration[] {
  let listed: unknown = defaults;
  if (typeof option === 'function') {
    try {
      listed = option([...defaults]);
    } catch (error) {
      debug.error('the integrations function threw; the default integrations are used', error);
    }
  } else if (option !== undefined) {
    const added = new Set(option.map(nameOf));
    listed = [...defaults.filter((entry) => !added.has(entry.name)), ...option];
  }
  if (!Array.isArray(listed)) {
    debug.warn('the integrations function must return an array; the default integrations are used.');
    listed = defaults;
  }
  const byName = new Map<string, Integration>();
  for (const entry of listed as unknown[]) {
    if (!isIntegration(entry)) {
      const name = nameOf(entry);
      const what = typeof name === 'string' ? `"${name}"` : `a ${typeof entry}`;
      debug.warn(`integrations: ${what} is not an integration ({ name, setup(core) }); it is left out.`);
    } else {
      if (byName.delete(entry.name))
        debug.warn(`integrations: "${entry.name}" is listed twice; only the later one is started.`);
      byName.set(entry.name, entry);
    }
  }
  const replaced = new Set<string>();
  for (const entry of byName.values()) for (const name of entry.replaces ?? []) replaced.add(name);
  for (const name of replaced) {
    if (byName.delete(name))
      debug.warn(`integrations: "${name}" is replaced by another integration; it is not started.`);
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
