import {
  AGGREGATES,
  COMPARE_TO,
  LOG_SEVERITIES,
  NO_DATA,
  RULE_SEVERITIES,
  SIGNALS,
  type Signal,
} from '../../../../src/api-types';
import type { ActionFailure } from '../../ui/use-action';
import { Field, FieldError, formField } from '../notifications/form-parts';
import { VITAL_NAMES } from '../vitals/types';
import { filters, hasMetric, withSignal, type Draft, type TextFilter } from './draft';

/** The editor's fields, each showing the server's refusal of it (`details.field`) next to it. */

export interface FieldsProps {
  draft: Draft;
  onChange: (next: Draft) => void;
  error?: ActionFailure;
}

const SIGNAL_LABELS: Record<Signal, string> = {
  vitals: 'Web Vitals',
  spans: 'Spans',
  logs: 'Logs',
  metrics: 'Metrics',
  issues: 'Issues',
  sessions: 'Sessions',
};
const COMPARE_LABELS = {
  day: 'the same window a day before',
  week: 'a week before',
  previous_release: 'the previous release',
};

const FILTER_LABELS: Record<TextFilter, { label: string; placeholder?: string }> = {
  app: { label: 'Apps (comma-separated)', placeholder: 'any' },
  env: { label: 'Environments (comma-separated)', placeholder: 'any but test' },
  release: { label: 'Releases (comma-separated)', placeholder: 'any' },
  route: { label: 'Route (* matches anything)', placeholder: '/checkout*' },
  name: { label: 'Name (span or event, exactly)' },
  service: { label: 'Service (service.name)' },
  text: { label: 'Log body contains' },
  issue_id: { label: 'Issue id' },
};

function Select<T extends string>({
  label,
  name,
  value,
  options,
  onChange,
  error,
}: {
  label: string;
  name: string;
  value: T;
  options: ReadonlyArray<readonly [T, string]>;
  onChange: (value: T) => void;
  error?: ActionFailure;
}) {
  return (
    <Field label={label} name={name} error={error}>
      {(props) => (
        <select {...props} value={value} onChange={(e) => onChange(e.currentTarget.value as T)}>
          {options.map(([v, text]) => (
            <option key={v} value={v}>
              {text}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

function Text({
  label,
  name,
  value,
  onChange,
  error,
  hint,
  placeholder,
  numeric,
}: {
  label: string;
  name: string;
  value: string;
  onChange: (value: string) => void;
  error?: ActionFailure;
  hint?: string;
  placeholder?: string;
  numeric?: boolean;
}) {
  return (
    <Field label={label} name={name} error={error} hint={hint}>
      {(props) => (
        <input
          {...props}
          value={value}
          placeholder={placeholder}
          inputMode={numeric ? 'decimal' : undefined}
          onChange={(e) => onChange(e.currentTarget.value)}
        />
      )}
    </Field>
  );
}

const pairs = <T extends string>(values: readonly T[], label: (v: T) => string = (v) => v) =>
  values.map((v) => [v, label(v)] as const);

/** What the rule measures: the signal, its aggregate and metric, and the filters the signal takes. */
export function QueryFields({ draft, onChange, error }: FieldsProps) {
  const set = (patch: Partial<Draft>) => onChange({ ...draft, ...patch });
  const setFilter = (key: TextFilter, value: string) => set({ filter: { ...draft.filter, [key]: value } });
  const { signal } = draft;
  return (
    <fieldset className="editor-group">
      <legend>What to measure</legend>
      <div className="form-grid">
        <Select
          label="Signal"
          name="signal"
          value={signal}
          options={pairs(SIGNALS, (s) => SIGNAL_LABELS[s])}
          onChange={(s) => onChange(withSignal(draft, s))}
          error={error}
        />
        <Select
          label="Aggregate"
          name="query.aggregate"
          value={draft.aggregate}
          options={pairs<string>(AGGREGATES[signal])}
          onChange={(aggregate) => set({ aggregate })}
          error={error}
        />
        {signal === 'vitals' && (
          <Select
            label="Vital"
            name="query.metric"
            value={draft.metric}
            options={pairs<string>(VITAL_NAMES)}
            onChange={(metric) => set({ metric })}
            error={error}
          />
        )}
        {hasMetric(signal) && signal !== 'vitals' && (
          <Text
            label="Metric name"
            name="query.metric"
            value={draft.metric}
            onChange={(metric) => set({ metric })}
            error={error}
            placeholder="cart.checkout"
          />
        )}
        {(Object.keys(FILTER_LABELS) as TextFilter[])
          .filter((key) => filters(signal, key))
          .map((key) => (
            <Text
              key={key}
              label={FILTER_LABELS[key].label}
              name={`query.filter.${key}`}
              value={draft.filter[key]}
              placeholder={FILTER_LABELS[key].placeholder}
              onChange={(value) => setFilter(key, value)}
              error={error}
            />
          ))}
      </div>
      {filters(signal, 'attributes') && (
        <Field
          label="Attributes (key=value, one a line)"
          name="query.filter.attributes"
          error={error}
          hint="Records whose attribute has exactly this value, as text."
        >
          {(props) => (
            <textarea
              {...props}
              rows={2}
              value={draft.attributes}
              onChange={(e) => set({ attributes: e.currentTarget.value })}
            />
          )}
        </Field>
      )}
      {filters(signal, 'severity') && (
        <fieldset
          className="choice-group"
          aria-invalid={error && formField(error.field) === 'query.filter.severity' ? true : undefined}
        >
          <legend>Log severities (none = any)</legend>
          {LOG_SEVERITIES.map((s) => (
            <label key={s}>
              <input
                type="checkbox"
                checked={draft.severities.includes(s)}
                onChange={(e) =>
                  set({
                    severities: e.currentTarget.checked
                      ? LOG_SEVERITIES.filter((x) => x === s || draft.severities.includes(x))
                      : draft.severities.filter((x) => x !== s),
                  })
                }
              />{' '}
              {s}
            </label>
          ))}
          <FieldError error={error} name="query.filter.severity" />
        </fieldset>
      )}
    </fieldset>
  );
}

/** When it fires: the window, the condition (a threshold or a change), the recovery and how long it must hold. */
export function ConditionFields({ draft, onChange, error, unitHint }: FieldsProps & { unitHint: string }) {
  const c = draft.condition;
  const setCondition = (patch: Partial<Draft['condition']>) => onChange({ ...draft, condition: { ...c, ...patch } });
  const set = (patch: Partial<Draft>) => onChange({ ...draft, ...patch });
  return (
    <fieldset className="editor-group">
      <legend>When it fires</legend>
      <div className="form-grid">
        <Text
          label="Window (seconds)"
          name="window_seconds"
          value={draft.window_seconds}
          onChange={(window_seconds) => set({ window_seconds })}
          error={error}
          hint="Each value is over the last window: 60 to 86400."
          numeric
        />
        <Select
          label="Condition"
          name="condition.type"
          value={c.type}
          options={[
            ['threshold', 'Crosses a threshold'],
            ['change', 'Changes against a baseline'],
          ]}
          onChange={(type) => setCondition({ type })}
          error={error}
        />
        <Select
          label="Direction"
          name="condition.op"
          value={c.op}
          options={[
            ['above', 'Above'],
            ['below', 'Below'],
          ]}
          onChange={(op) => setCondition({ op })}
          error={error}
        />
        {c.type === 'threshold' ? (
          <>
            <Text
              label="Threshold"
              name="condition.value"
              value={c.value}
              onChange={(value) => setCondition({ value })}
              error={error}
              hint={unitHint}
              numeric
            />
            <Text
              label="Recovers at (optional)"
              name="recovery.value"
              value={draft.recovery}
              onChange={(recovery) => set({ recovery })}
              error={error}
              hint="Resolves once the value is back across this; empty: once the condition no longer holds."
              numeric
            />
          </>
        ) : (
          <>
            <Text
              label="Change (%)"
              name="condition.percent"
              value={c.percent}
              onChange={(percent) => setCondition({ percent })}
              error={error}
              numeric
            />
            <Select
              label="Compared with"
              name="condition.compare_to"
              value={c.compare_to}
              options={pairs(COMPARE_TO, (v) => COMPARE_LABELS[v])}
              onChange={(compare_to) => setCondition({ compare_to })}
              error={error}
            />
          </>
        )}
        <Text
          label="For (seconds)"
          name="for_seconds"
          value={draft.for_seconds}
          onChange={(for_seconds) => set({ for_seconds })}
          error={error}
          hint="The condition must hold this long before it fires (pending until then)."
          numeric
        />
      </div>
    </fieldset>
  );
}

/** What a firing does: the incident's severity, what no data means, and whether the rule runs at all. */
export function OutcomeFields({ draft, onChange, error }: FieldsProps) {
  const set = (patch: Partial<Draft>) => onChange({ ...draft, ...patch });
  return (
    <fieldset className="editor-group">
      <legend>What happens</legend>
      <div className="form-grid">
        <Select
          label="Incident severity"
          name="severity"
          value={draft.severity}
          options={pairs(RULE_SEVERITIES)}
          onChange={(severity) => set({ severity })}
          error={error}
        />
        <Select
          label="When no data arrives"
          name="no_data"
          value={draft.no_data}
          options={pairs(NO_DATA, (v) => (v === 'alert' ? 'Alert: the signal stopped' : 'Stay quiet'))}
          onChange={(no_data) => set({ no_data })}
          error={error}
        />
        <div className="field field-checkbox">
          <label>
            <input
              type="checkbox"
              checked={draft.enabled}
              onChange={(e) => set({ enabled: e.currentTarget.checked })}
            />{' '}
            Enabled
          </label>
        </div>
      </div>
    </fieldset>
  );
}
