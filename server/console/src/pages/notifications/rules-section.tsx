import { useEffect, useRef, useState } from 'react';
import { parseResponse } from 'hono/client';
import { channelsClient, rulesClient } from '../../api/typed';
import { useApi } from '../../api/use-api';
import { formatDuration } from '../../ui/format';
import { LoadState } from '../../ui/status';
import { ActionError, useAction } from '../../ui/use-action';
import { ConfirmDelete, SectionHead } from './form-parts';
import { RuleForm } from './rule-form';
import type { Rule } from './types';

type Editing = { mode: 'new' } | { mode: 'edit'; rule: Rule } | null;

const conditionText = (rule: Rule) =>
  [
    rule.conditions.severity?.length ? `severity ${rule.conditions.severity.join(', ')}` : '',
    rule.conditions.env?.length ? `env ${rule.conditions.env.join(', ')}` : '',
    rule.conditions.services?.length ? `services ${rule.conditions.services.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join('; ') || 'every incident';

/**
 * Rules in evaluation order. Move up / Move down save the whole order (`PUT .../rules/order`); the new position is
 * announced in a live region and focus stays on the moved rule's button (or its other one at either end).
 */
export function RulesSection({ writable }: { writable: boolean }) {
  const rules = useApi((o) => rulesClient.index.$get(undefined, o));
  const channels = useApi((o) => channelsClient.index.$get(undefined, o));
  const [order, setOrder] = useState<Rule[] | undefined>();
  const [editing, setEditing] = useState<Editing>(null);
  const [announce, setAnnounce] = useState('');
  const [asking, setAsking] = useState<string | null>(null);
  const focusAfter = useRef<{ id: string; dir: 'up' | 'down' } | null>(null);
  const list = useRef<HTMLOListElement>(null);

  useEffect(() => setOrder(rules.data?.data), [rules.data]);
  useEffect(() => {
    const want = focusAfter.current;
    if (!want || !list.current) return;
    focusAfter.current = null;
    const button = (dir: string) => list.current?.querySelector<HTMLButtonElement>(`[data-move="${want.id}:${dir}"]`);
    const target = button(want.dir);
    (target && !target.disabled ? target : button(want.dir === 'up' ? 'down' : 'up'))?.focus();
  }, [order]);

  const channelName = new Map((channels.data?.data ?? []).map((c) => [c.id, c.name]));
  const reorder = useAction(async (next: Rule[], rule: Rule, dir: 'up' | 'down') => {
    const saved = await parseResponse(rulesClient.order.$put({ json: { ids: next.map((r) => r.id) } }));
    focusAfter.current = { id: rule.id, dir };
    setOrder(saved.data);
    const position = saved.data.findIndex((r) => r.id === rule.id) + 1;
    setAnnounce(`${rule.name} moved to position ${position} of ${saved.data.length}.`);
  });
  const move = (index: number, dir: 'up' | 'down') => {
    if (!order || reorder.busy) return;
    const to = dir === 'up' ? index - 1 : index + 1;
    if (to < 0 || to >= order.length) return;
    const next = [...order];
    const [rule] = next.splice(index, 1);
    next.splice(to, 0, rule!);
    void reorder.run(next, rule!, dir);
  };
  const remove = useAction(async (rule: Rule) => {
    setAsking(null);
    await parseResponse(rulesClient[':id'].$delete({ param: { id: encodeURIComponent(rule.id) } }));
    setAnnounce(`Rule ${rule.name} deleted.`);
    rules.reload();
  });
  const saved = (rule: Rule) => {
    setAnnounce(`Rule ${rule.name} ${editing?.mode === 'edit' ? 'saved' : 'created'}.`);
    setEditing(null);
    rules.reload();
  };

  return (
    <section aria-labelledby="rules-heading">
      <SectionHead
        id="rules-heading"
        title="Rules"
        newLabel="New rule"
        onNew={writable && editing === null ? () => setEditing({ mode: 'new' }) : undefined}
      />
      <p className="hint">
        Rules are evaluated top to bottom; every rule that matches an incident sends to its channels.
      </p>
      <p role="status" aria-live="polite" className="notice">
        {announce}
      </p>
      <ActionError error={reorder.error ?? remove.error} className="state state-error" />
      {editing && (
        <RuleForm
          key={editing.mode === 'edit' ? editing.rule.id : 'new'}
          rule={editing.mode === 'edit' ? editing.rule : undefined}
          channels={channels.data?.data ?? []}
          onSaved={saved}
          onCancel={() => setEditing(null)}
        />
      )}
      <LoadState
        loading={rules.loading && !order}
        error={rules.error}
        empty={order !== undefined && order.length === 0}
      >
        No rules yet: incidents notify nobody.
      </LoadState>
      {order && order.length > 0 && (
        <ol className="rule-list" aria-label="Rules in evaluation order" ref={list}>
          {order.map((rule, i) => (
            <li key={rule.id} className="rule-item">
              <span className="rule-position" aria-hidden="true">
                {i + 1}
              </span>
              <div className="rule-body">
                <strong className="rule-name">{rule.name}</strong>
                <span className="hint">
                  {conditionText(rule)} → {rule.channels.map((id) => channelName.get(id) ?? id).join(', ')}
                  {rule.delay_seconds > 0 ? ` after ${formatDuration(rule.delay_seconds * 1000)}` : ''}
                </span>
              </div>
              {writable && (
                <div className="row-actions">
                  <button
                    type="button"
                    data-move={`${rule.id}:up`}
                    disabled={i === 0}
                    onClick={() => move(i, 'up')}
                    aria-label={`Move ${rule.name} up`}
                  >
                    ↑ Up
                  </button>
                  <button
                    type="button"
                    data-move={`${rule.id}:down`}
                    disabled={i === order.length - 1}
                    onClick={() => move(i, 'down')}
                    aria-label={`Move ${rule.name} down`}
                  >
                    ↓ Down
                  </button>
                  <button
                    type="button"
                    onClick={() => setEditing({ mode: 'edit', rule })}
                    aria-label={`Edit ${rule.name}`}
                  >
                    Edit
                  </button>
                  <ConfirmDelete
                    what={rule.name}
                    asking={asking === rule.id}
                    setAsking={(a) => setAsking(a ? rule.id : null)}
                    onConfirm={() => void remove.run(rule)}
                  />
                </div>
              )}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
