import type { DialectName } from '../db/connect';
import { knownMigrations } from '../db/migrate';
import { invalid } from '../shared/domain-errors';

/**
 * Checks that a backup's migrations (the names its `kysely_migration` table lists) can be restored by this version: a
 * backup with none is not an svc database, and one with a migration this version does not know was taken by a newer
 * version, whose tables this one would misread. Migrations it lacks are fine: the server applies them on its start.
 */
export function checkMigrationLevel(source: string, applied: readonly string[], dialect: DialectName): void {
  if (applied.length === 0)
    throw invalid(`${source} is not an svc backup: it records no svc migration`, 'not_a_backup');
  const known = new Set(knownMigrations(dialect));
  const unknown = applied.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw invalid(
      `${source} was taken by a newer svc-server: this one does not know its migrations ${unknown.join(', ')}; restore it with that version or a later one`,
      'backup_too_new',
    );
  }
}
