/**
 * A suite whose tools are missing is skipped with a notice on a developer's machine, and fails under CI, whose
 * machine must have them (`.ci/run` installs them), as the PostgreSQL suites do: a silent skip there would pass a
 * suite that never ran.
 */
export function missingTools(suite: string, missing: readonly string[], hint: string): boolean {
  if (missing.length === 0) return false;
  const message = `${suite} tests: ${missing.join(', ')} not found (${hint})`;
  if (process.env.CI) throw new Error(`${message}, and CI requires them`);
  console.warn(`NOTICE: ${message}: skipped`);
  return true;
}
