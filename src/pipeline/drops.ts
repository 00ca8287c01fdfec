import { DROPPED_ITEMS_METRIC } from '../../wire/self-telemetry';
import type { MetricItem } from './items';
import type { PipelineState } from './pipeline-state';

/** Counts `count` records lost for `reason`; the server hears of it with the next batch (`dropReports`). */
export function countLost(state: PipelineState, reason: string, count: number): void {
  state.lost_[reason] = (state.lost_[reason] || 0) + count;
}

/** One counter point per reason whose count the server has not had yet; a new queue overflow is warned about. */
export function dropReports(state: PipelineState): MetricItem[] {
  const { lost_: lost, lostSent_: lostSent } = state;
  const dropped = state.queue_.dropped;
  if (dropped > state.droppedWarned_) {
    state.debug_.warn(
      `queue full (maxQueueSize ${state.options_.config.maxQueueSize}): ${dropped - state.droppedWarned_} oldest records dropped, ${dropped} since start`,
    );
    state.droppedWarned_ = dropped;
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
        timeMs: state.clock_.now(),
        sumSinceMs: state.startMs_,
        sessionId: state.lastSessionId_,
        attributes: { reason },
      };
      state.reports_.add(report);
      return report;
    });
}

/** A drop report was delivered (or refused for good): the server has had that count. */
export function reportSent(state: PipelineState, report: MetricItem): void {
  const reason = String(report.attributes.reason);
  state.lostSent_[reason] = Math.max(state.lostSent_[reason] || 0, report.value);
}
