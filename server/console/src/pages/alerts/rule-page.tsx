import { parseResponse } from 'hono/client';
import { useState } from 'react';
import { Link, useLocation, useParams } from 'wouter';
import { alertRulesClient } from '../../api/typed';
import { can } from '../../api/types';
import { useApi } from '../../api/use-api';
import { useMe } from '../../auth/me-context';
import { PageHeader } from '../../ui/layout';
import { LoadState } from '../../ui/status';
import { useUrlState } from '../../ui/url-state';
import { ActionError, useAction } from '../../ui/use-action';
import { ConfirmDelete, EditForm, Field } from '../notifications/form-parts';
import { bodyOf, draftOf, NEW_DRAFT, previewRuleOf, releaseWatchDraft, TEXT_FILTERS, type Draft } from './draft';
import { ConditionFields, OutcomeFields, QueryFields } from './fields';
import { PreviewPanel } from './preview-panel';
import { RuleStateBadge, valueText } from './rule-text';
import type { Rule } from './types';
import './alerts.css';

/** What the threshold is in, for the rule's aggregate. */
function unitHint(draft: Draft): string {
  if (draft.aggregate === 'error_rate' || draft.aggregate === 'error_free_share')
    return 'A share from 0 to 1 (0.05 is 5 %).';
  if (draft.signal === 'vitals') return draft.metric === 'CLS' ? 'A layout shift score.' : 'Milliseconds.';
  if (draft.signal === 'spans' && draft.aggregate.startsWith('p')) return 'Milliseconds of span duration.';
  return 'In the unit of the measure.';
}

/** The editor of a new rule, or of `rule`: every field, the live preview, save (and delete). */
function RuleEditor({ rule, writable, start }: { rule?: Rule; writable: boolean; start: Draft }) {
  const [draft, setDraft] = useState<Draft>(() => (rule ? draftOf(rule) : start));
  const [, navigate] = useLocation();
  const [asking, setAsking] = useState(false);
  const save = useAction(async () => {
    const json = bodyOf(draft);
    const saved = rule
      ? await parseResponse(alertRulesClient[':id'].$patch({ param: { id: encodeURIComponent(rule.id) }, json }))
      : await parseResponse(alertRulesClient.index.$post({ json }));
    navigate(`/alerts?saved=${encodeURIComponent(saved.name)}`);
  });
  const remove = useAction(async () => {
    await parseResponse(alertRulesClient[':id'].$delete({ param: { id: encodeURIComponent(rule!.id) } }));
    navigate('/alerts');
  });
  const error = save.error;
  const props = { draft, onChange: setDraft, error };
  return (
    <div className="rule-editor">
      <EditForm
        title={rule ? 'Definition' : 'Definition of the new rule'}
        submitLabel={rule ? 'Save rule' : 'Create rule'}
        saving={save.busy || !writable}
        error={error}
        fields={[
          'name',
          'signal',
          'query.aggregate',
          'query.metric',
          ...[...TEXT_FILTERS, 'attributes', 'severity'].map((f) => `query.filter.${f}`),
          'window_seconds',
          'condition.type',
          'condition.op',
          'condition.value',
          'condition.percent',
          'condition.compare_to',
          'recovery.value',
          'for_seconds',
          'severity',
          'no_data',
        ]}
        onSubmit={() => void save.run()}
        onCancel={() => navigate('/alerts')}
      >
        <Field label="Name" name="name" error={error}>
          {(p) => (
            <input
              {...p}
              className="rule-name-input"
              value={draft.name}
              onChange={(e) => setDraft({ ...draft, name: e.currentTarget.value })}
            />
          )}
        </Field>
        <QueryFields {...props} />
        <ConditionFields {...props} unitHint={unitHint(draft)} />
        <OutcomeFields {...props} />
      </EditForm>
      <PreviewPanel rule={previewRuleOf(draft)} />
      {rule && writable && (
        <div className="row-actions">
          <ConfirmDelete what={rule.name} asking={asking} setAsking={setAsking} onConfirm={() => void remove.run()} />
          <ActionError error={remove.error} />
        </div>
      )}
    </div>
  );
}

/** `/alert/:id`: one rule's state and its editor with the preview; `/alert/new` makes one. */
export default function RulePage() {
  const { id = '' } = useParams<{ id: string }>();
  const me = useMe();
  const writable = can(me, 'project.configure');
  const isNew = id === 'new';
  const [params] = useUrlState();
  const watched = params.get('watch_release_of');
  const loaded = useApi(
    isNew ? null : (o) => alertRulesClient[':id'].$get({ param: { id: encodeURIComponent(id) } }, o),
    [id],
  );
  const rule = loaded.data;
  return (
    <article className="rule-page">
      <p className="back">
        <Link href="/alerts">← Alerts</Link>
      </p>
      <PageHeader title={isNew ? 'New alert rule' : (rule?.name ?? 'Alert rule')} />
      {!writable && (
        <p className="panel read-note" role="note">
          Read-only: you can preview rules but not save them.
        </p>
      )}
      {!isNew && !rule && <LoadState loading={loaded.loading} error={loaded.error} />}
      {rule && (
        <p className="status-line">
          <RuleStateBadge state={rule.state} />{' '}
          {rule.last_evaluated_at ? `last value ${valueText(rule, rule.last_value)}` : 'not evaluated yet'}
          {rule.incident_id && (
            <>
              {' · '}
              <Link href={`/incident/${encodeURIComponent(rule.incident_id)}`}>its open incident</Link>
            </>
          )}
        </p>
      )}
      {(isNew || rule) && (
        <RuleEditor
          key={rule?.updated_at ?? 'new'}
          rule={rule}
          writable={writable}
          start={watched ? releaseWatchDraft(watched) : NEW_DRAFT}
        />
      )}
    </article>
  );
}
