import type { Kysely, Selectable, Updateable } from 'kysely';
import type { Database } from '../../db/schema';
import { notFound } from '../../shared/domain-errors';

/** Notification channels: where deliveries go, their config as JSON and their secrets sealed. */
export type ChannelRow = Selectable<Database['notification_channels']>;
type ChannelChanges = Pick<Updateable<Database['notification_channels']>, 'name' | 'config' | 'secrets'>;

/** A channel by id whatever its project: the outbox's delivery already names the channel it was written for. */
export function channelById(db: Kysely<Database>, id: string): Promise<ChannelRow | undefined> {
  return db.selectFrom('notification_channels').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A channel of the project, or the `not_found` refusal. */
export async function loadChannel(db: Kysely<Database>, projectId: string, id: string): Promise<ChannelRow> {
  const row = await db
    .selectFrom('notification_channels')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw channelNotFound(id);
  return row;
}

const channelNotFound = (id: string) => notFound(`no notification channel ${id} in this project`);

/** The project's channels, oldest first. */
export function listChannels(db: Kysely<Database>, projectId: string): Promise<ChannelRow[]> {
  return db
    .selectFrom('notification_channels')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('created_ms')
    .execute();
}

export async function insertChannel(db: Kysely<Database>, row: ChannelRow): Promise<void> {
  await db.insertInto('notification_channels').values(row).execute();
}

export async function updateChannel(
  db: Kysely<Database>,
  projectId: string,
  id: string,
  changes: ChannelChanges,
): Promise<void> {
  await db
    .updateTable('notification_channels')
    .set(changes)
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .execute();
}

/** Deletes a channel of the project (its deliveries go with it), or refuses with `not_found`. */
export async function deleteChannel(db: Kysely<Database>, projectId: string, id: string): Promise<void> {
  const result = await db
    .deleteFrom('notification_channels')
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw channelNotFound(id);
}
