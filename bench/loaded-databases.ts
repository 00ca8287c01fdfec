import type { DatabaseKind } from '../test/support/databases';

/**
 * `--loaded postgres=URL,sqlite=FILE` of bench:scale and bench:rules: the databases an earlier `bench:scale
 * --load-only` left, by kind, used as they are and kept. A pair for a kind the run does not measure is refused.
 */
export function loadedDatabases(arg: string, kinds: readonly DatabaseKind[]): Map<DatabaseKind, string> {
  return new Map(
    arg
      .split(',')
      .filter(Boolean)
      .map((pair) => {
        const at = pair.indexOf('=');
        const kind = pair.slice(0, at) as DatabaseKind;
        if (at < 0 || !kinds.includes(kind))
          throw new Error(`--loaded takes kind=url pairs for the --databases given, not "${pair}"`);
        return [kind, pair.slice(at + 1)] as const;
      }),
  );
}
