import { sql, type RawBuilder } from 'kysely';
import type { DialectName } from './connect';

/**
 * A column a condition compares without its index on SQLite (the unary `+`). SQLite keeps no statistics (the server
 * never runs ANALYZE), so it takes a range or an equality on an indexed column to be selective and would read every
 * match through that index and sort them all; walking the listing's sort index and skipping what does not match finds
 * a first page after a few hundred rows instead. PostgreSQL chooses by its statistics.
 */
export const unindexed = (dialect: DialectName, column: string): RawBuilder<unknown> =>
  dialect === 'sqlite' ? sql`+${sql.ref(column)}` : sql`${sql.ref(column)}`;
