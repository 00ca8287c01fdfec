import { parseResponse } from 'hono/client';
import { issuesClient } from '../../api/typed';
import { can } from '../../api/types';
import { useMe } from '../../auth/me-context';
import { ActionError, useAction } from '../../ui/use-action';
import type { Issue } from './types';

type Change = { status: 'unresolved' | 'resolved' | 'ignored'; in_next_release?: boolean };

/** The moves a person can make from each status (`regressed` is the detector's; a person resolves or ignores it). */
function movesFrom(status: Issue['status']): Array<{ label: string; change: Change }> {
  const resolve = [
    { label: 'Resolve', change: { status: 'resolved' } as Change },
    { label: 'Resolve in next release', change: { status: 'resolved', in_next_release: true } as Change },
  ];
  const ignore = { label: 'Ignore', change: { status: 'ignored' } as Change };
  const reopen = { label: 'Reopen', change: { status: 'unresolved' } as Change };
  if (status === 'resolved') return [reopen, ignore];
  if (status === 'ignored') return [reopen, ...resolve];
  return [...resolve, ignore];
}

/** Resolve / ignore / reopen with `PATCH /issues/{id}`; a read key sees why there are no buttons. */
export function StatusControls({ issue, onChanged }: { issue: Issue; onChanged: () => void }) {
  const me = useMe();
  const {
    run: apply,
    busy,
    error,
  } = useAction(async (change: Change) => {
    await parseResponse(issuesClient[':id'].$patch({ param: { id: encodeURIComponent(issue.id) }, json: change }));
    onChanged();
  });
  if (!can(me, 'issues.triage')) return <p className="hint">Read-only key: status changes need a control key.</p>;
  return (
    <div className="status-controls" role="group" aria-label="Change the status">
      {movesFrom(issue.status).map((m) => (
        <button
          key={m.label}
          type="button"
          disabled={busy}
          className={m.label === 'Resolve' ? 'primary' : undefined}
          onClick={() => void apply(m.change)}
        >
          {m.label}
        </button>
      ))}
      <ActionError error={error} as="span" />
    </div>
  );
}
