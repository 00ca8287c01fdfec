import type { MetricItem, TelemetryItem } from './items';
import { MAX_REQUEST_BYTES } from './keepalive-budget';
import { ENCODE_BODY, partition, type BySignal, type ItemOf, type Signal } from './otlp-json';
import type { BoundedQueue } from './queue';
import { splitIntoChunks, type Chunk } from './split';
import type { PipelineOptions } from './types';

export const SIGNALS: readonly Signal[] = ['logs', 'traces', 'metrics'];

/** What the queue gives a flush: its records per signal, encoded into requests of at most ~60 KB (a tuple). */
export type Batches = readonly [
  /** Takes every waiting record and the drop reports due, split per signal; undefined when there are none. */
  take: () => BySignal | undefined,
  /** One signal's records as request bodies of at most ~60 KB each, in order. */
  chunks: <S extends Signal>(signal: S, items: ItemOf[S][]) => Chunk<ItemOf[S]>[],
];

/** `service.name` (the pinned app id when given), version and environment, then the caller's extra attributes. */
export function serviceAttributes(options: Pick<PipelineOptions, 'config' | 'resource'>): Record<string, string> {
  const { config } = options;
  const attributes: Record<string, string> = { 'service.name': config.appId ?? (config.serviceName || '') };
  if (config.serviceVersion) attributes['service.version'] = config.serviceVersion;
  if (config.env) attributes['deployment.environment'] = config.env;
  for (const [key, value] of Object.entries(options.resource)) {
    if (!(key in attributes) && key !== 'session.id') attributes[key] = value;
  }
  return attributes;
}

export function createBatches(
  queue: Pick<BoundedQueue<TelemetryItem>, 'takeAll'>,
  reports: () => MetricItem[],
  options: Pick<PipelineOptions, 'config' | 'resource' | 'sessionResource'>,
): Batches {
  const service = serviceAttributes(options);
  return [
    () => {
      const taken = queue.takeAll();
      const due = reports();
      if (taken.length === 0 && due.length === 0) return undefined;
      const batch = partition(taken);
      batch.metrics.push(...due);
      return batch;
    },
    (signal, items) =>
      splitIntoChunks(items, (part) => ENCODE_BODY[signal](part, service, options.sessionResource), MAX_REQUEST_BYTES),
  ];
}
