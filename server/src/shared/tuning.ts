/**
 * A job's tuning: `defaults` with the given options on top. Refuses a setting under which the job could not work (each
 * is a positive number of milliseconds, rows or times), naming it: a typo in a test's options fails at start.
 */
export function positiveOptions<T extends object>(job: string, defaults: T, options: Partial<T> = {}): T {
  const merged = { ...defaults, ...options };
  for (const [name, value] of Object.entries(merged)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
      throw new Error(`${job} option ${name} must be a positive number, got ${String(value)}`);
  }
  return merged;
}
