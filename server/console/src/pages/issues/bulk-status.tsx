import { useState } from 'react';
import { parseResponse } from 'hono/client';
import { issuesClient } from '../../api/typed';
import { ActionError, useAction } from '../../ui/use-action';

type Status = 'resolved' | 'ignored' | 'unresolved';
const MOVES: ReadonlyArray<{ status: Status; label: string; done: string }> = [
  { status: 'resolved', label: 'Resolve', done: 'resolved' },
  { status: 'ignored', label: 'Ignore', done: 'ignored' },
  { status: 'unresolved', label: 'Reopen', done: 'reopened' },
];

/**
 * Resolve, ignore or reopen the selected issues at once (`PATCH /issues`, one transaction, each recorded as a single
 * change is); what happened is announced, and the list reloads.
 */
export function BulkStatus({
  selected,
  onDone,
  onClear,
}: {
  selected: ReadonlySet<string>;
  onDone: () => void;
  onClear: () => void;
}) {
  const [result, setResult] = useState<string>();
  const { run, busy, error } = useAction(async (move: (typeof MOVES)[number]) => {
    setResult(undefined);
    const { data } = await parseResponse(
      issuesClient.index.$patch({ json: { ids: [...selected], status: move.status } }),
    );
    setResult(`${data.length === 1 ? '1 issue' : `${data.length} issues`} ${move.done}.`);
    onDone();
  });
  return (
    <div className="bulk-bar" role="group" aria-label="Change the selected issues">
      <span>{selected.size === 0 ? 'Select issues to change several at once.' : `${selected.size} selected`}</span>
      {MOVES.map((m) => (
        <button key={m.status} type="button" disabled={busy || selected.size === 0} onClick={() => void run(m)}>
          {m.label}
        </button>
      ))}
      {selected.size > 0 && (
        <button type="button" className="link-button" onClick={onClear}>
          Clear selection
        </button>
      )}
      <span role="status" className="hint">
        {result}
      </span>
      <ActionError error={error} as="span" />
    </div>
  );
}
