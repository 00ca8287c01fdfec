import { POINT_UID_ATTRIBUTE } from '../../wire/self-telemetry';
import type { SdkCore } from '../core/core';
import type { MetricRecorder } from '../core/integration';
import { nowMs } from './clock';
import { readCallContext } from './context';
import { runGuarded } from './internal';
import { randomHexId } from '../session/ids';
import { metricNameProblems } from './metric-names';
import { describeArgument, truncate } from './render';

/** Names checked by `validateSemanticMetrics` are remembered so a metric recorded in a loop warns once. */
const MAX_VALIDATED_NAMES = 500;
const MAX_UNIT_LENGTH = 64;

/**
 * Creates the metric recorder of one SDK instance. It never throws. With `validateSemanticMetrics` and
 * `debug` both on, each new name is checked against the rules of `metricNameProblems` and warned about once.
 */
export function createMetricRecorder(core: SdkCore): MetricRecorder {
  const validate = core.config.validateSemanticMetrics && core.config.debug;
  const validated = new Set<string>();

  const checkName = (name: string, unit: string): void => {
    const key = `${name}\u0000${unit}`;
    if (validated.has(key) || validated.size >= MAX_VALIDATED_NAMES) return;
    validated.add(key);
    for (const problem of metricNameProblems(name, unit)) core.debug.warn(`metric "${name}" ${problem}.`);
  };

  return (name, value, unit, context, extraAttributes) => {
    runGuarded(core, 'metric()', () => {
      if (typeof name !== 'string' || name.trim() === '') {
        core.debug.warn(`metric(): the name must be a non-empty string, got ${describeArgument(name)}; dropped.`);
        return;
      }
      if (typeof value !== 'number' || !Number.isFinite(value)) {
        core.debug.warn(
          `metric("${name}"): the value must be a finite number, got ${describeArgument(value)}; dropped.`,
        );
        return;
      }
      let checkedUnit = '';
      if (typeof unit === 'string') checkedUnit = truncate(unit, MAX_UNIT_LENGTH);
      else if (unit !== undefined && unit !== null) {
        core.debug.warn(
          `metric("${name}"): the unit must be a string such as "ms", got ${describeArgument(unit)}; recorded without a unit.`,
        );
      }
      if (validate) checkName(name, checkedUnit);
      const { sessionId, attributes } = readCallContext(core, context, 'metric()');
      core.enqueue({
        kind: 'metric',
        timeMs: nowMs(),
        name,
        value,
        unit: checkedUnit,
        sessionId,
        // The point's identity (POINT_UID_ATTRIBUTE): ingest stores a point sent again (a kept request) once.
        attributes: {
          ...attributes,
          ...extraAttributes,
          'session.id': sessionId,
          [POINT_UID_ATTRIBUTE]: randomHexId(),
        },
      });
    });
  };
}
