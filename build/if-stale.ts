/**
 * `tsx build/if-stale.ts NAME…` (sdk, server, operator, bundler-plugin, playwright): runs each named build that is
 * stale (build/stale.ts: an output missing or older than an input), saying why, and says which are up to date. Exits
 * with the status of the first build that fails. `npm start` and the packages' `prepack` run it. Everything it prints
 * goes to stderr: a `prepack` shares stdout with `npm pack --json`, whose answer must stay JSON.
 */
import { BUILDS, buildIfStale, isBuildName } from './stale';

const names = process.argv.slice(2);
const unknown = names.filter((name) => !isBuildName(name));
if (names.length === 0 || unknown.length > 0) {
  console.error(
    `usage: tsx build/if-stale.ts ${Object.keys(BUILDS).join('|')} …${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}`,
  );
  process.exit(2);
}
for (const name of names.filter(isBuildName)) {
  const started = Date.now();
  const result = buildIfStale(name, 'inherit', (reason) => console.error(`${name}: building (${reason})`));
  if (result === null) {
    console.error(`${name}: up to date`);
    continue;
  }
  if (result.status !== 0) {
    console.error(
      `${name}: build failed (${BUILDS[name].command.join(' ')} exited with ${result.status ?? 'a signal'})`,
    );
    process.exit(result.status || 1);
  }
  console.error(`${name}: built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
