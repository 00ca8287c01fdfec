import { INGEST_PATHS } from '../../wire/paths';
import { countLost, dropReports } from './drops';
import type { TelemetryItem } from './items';
import { MAX_REQUEST_BYTES } from './keepalive-budget';
import { ENCODE_BODY, partition, type BySignal, type ItemOf, type Signal } from './otlp-json';
import { book } from './outcomes';
import { SIGNALS, type PipelineState } from './pipeline-state';
import { splitIntoChunks, type Chunk } from './split';

/** Takes every waiting record (and the drop reports due), split per signal; undefined when none. */
export function takeBatch(state: PipelineState): BySignal | undefined {
  const taken = state.queue_.takeAll_();
  const due = dropReports(state);
  if (taken.length === 0 && due.length === 0) return undefined;
  const batch = partition(taken);
  batch.metrics.push(...due);
  return batch;
}

/** One signal's records as OTLP/JSON request bodies of at most ~60 KB. */
export function chunksOf<S extends Signal>(state: PipelineState, signal: S, items: ItemOf[S][]): Chunk<ItemOf[S]>[] {
  return splitIntoChunks(
    items,
    (part) => ENCODE_BODY[signal](part, state.service_, state.options_.sessionResource),
    MAX_REQUEST_BYTES,
  );
}

/** Every waiting record as request bodies, done with for the page (see Pipeline.drain). */
export function drainRequests(state: PipelineState): Array<[string, string]> {
  const batch = takeBatch(state);
  const requests: Array<[string, string]> = [];
  if (!batch) return requests;
  for (const signal of SIGNALS) {
    // As sendSignal does: a stopped signal's records are lost, counted.
    if (state.stoppedSignals_.has(signal)) countLost(state, 'refused', book(state, batch[signal]));
    else {
      for (const chunk of chunksOf(state, signal, batch[signal])) {
        requests.push([INGEST_PATHS[signal], chunk.body]);
        book(state, chunk.items as TelemetryItem[]);
      }
    }
  }
  return requests;
}
