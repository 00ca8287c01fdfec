import { DROPPED_ITEMS_METRIC } from '../../wire/self-telemetry';
import type { DebugLog } from '../core/core';
import type { PipelineClock } from './clock';
import type { MetricItem, TelemetryItem } from './items';
import type { BoundedQueue } from './queue';

/**
 * Records lost, per reason, reported to the server as the SDK's own counter (`DROPPED_ITEMS_METRIC`, a cumulative sum
 * since start): a report goes with the next batch after a drop, until the server has had that count.
 *
 * The pipeline's units return tuples of functions rather than objects: property names survive minification, and the
 * SDK's size budget (docs/sdk-build.md) has no room for them.
 */
export type DropLedger = readonly [
  /** `count` records were lost for `reason` (`queue_full` is the queue's own count). */
  lose: (reason: string, count: number) => void,
  /** One counter point per reason whose count the server has not had yet, for `sessionId`; warns of new queue drops. */
  reports: (sessionId: string) => MetricItem[],
  /** True for a point of `reports`: it is not a queue record, and never goes back on the queue. */
  isReport: (item: TelemetryItem) => boolean,
  /** A report is done with (delivered or refused): its count is not reported again. */
  reported: (report: MetricItem) => void,
];

export function createDropLedger(
  queue: Pick<BoundedQueue<TelemetryItem>, 'dropped'>,
  clock: Pick<PipelineClock, 'now'>,
  debug: Pick<DebugLog, 'warn'>,
  maxQueueSize: number,
): DropLedger {
  const startMs = clock.now();
  /** Records lost per reason, and the counts the server has had. */
  const lost: Record<string, number> = {};
  const lostSent: Record<string, number> = {};
  /** The reports currently being sent. */
  const sending = new WeakSet<TelemetryItem>();
  /** The queue's drop count last warned about. */
  let droppedWarned = 0;
  return [
    (reason, count) => {
      lost[reason] = (lost[reason] || 0) + count;
    },
    (sessionId) => {
      const dropped = queue.dropped;
      if (dropped > droppedWarned) {
        debug.warn(
          `queue full (maxQueueSize ${maxQueueSize}): ${dropped - droppedWarned} oldest records dropped, ${dropped} since start`,
        );
        droppedWarned = dropped;
      }
      if (dropped > 0) lost.queue_full = dropped;
      return Object.keys(lost)
        .filter((reason) => lost[reason]! > (lostSent[reason] || 0))
        .map((reason) => {
          const report: MetricItem = {
            kind: 'metric',
            name: DROPPED_ITEMS_METRIC,
            value: lost[reason]!,
            unit: '{item}',
            timeMs: clock.now(),
            sumSinceMs: startMs,
            sessionId,
            attributes: { reason },
          };
          sending.add(report);
          return report;
        });
    },
    (item) => sending.has(item),
    (report) => {
      const reason = String(report.attributes.reason);
      lostSent[reason] = Math.max(lostSent[reason] || 0, report.value);
    },
  ];
}
