import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema';
import { incidentThread, saveIncidentThread, type DeliveryRow } from '../deliveries/store';
import type { ThreadRef } from '../kinds/types';

export interface Threads {
  /** The thread memory a delivery's kind reads and writes. */
  of(delivery: DeliveryRow): ThreadRef;
  /** The delivery is done: a test or issue delivery's thread is not needed any more. */
  forget(deliveryId: string): void;
}

/**
 * Threads per (channel, incident) in the database, so every process continues an incident's thread. A test or issue
 * delivery has no incident to keep a thread with: its memory lives in this process, for its retries.
 */
export function createThreads(db: Kysely<Database>): Threads {
  const local = new Map<string, string>();
  return {
    of(delivery) {
      const { channel_id: channelId, incident_id: incidentId } = delivery;
      if (incidentId === null) {
        return {
          get: async () => local.get(delivery.id),
          set: async (value) => void local.set(delivery.id, value),
        };
      }
      return {
        get: () => incidentThread(db, channelId, incidentId),
        set: (ref) => saveIncidentThread(db, channelId, incidentId, ref),
      };
    },
    forget: (deliveryId) => void local.delete(deliveryId),
  };
}
