import { useMemo } from 'react';
import { useApi } from '../../api/use-api';
import { Stack } from '../../ui/stack';
import { Badge, LoadState } from '../../ui/status';
import { bodyText, isError, logTime } from './logs';
import type { PaneProps } from './pane-props';
import { SeekList } from './seek-list';
import type { LogRow } from './types';

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** `GET /control-plane/logs/{id}/frames` (server/src/query/log-frames-routes.ts). */
type LogFrames = Parameters<typeof Stack>[0]['stack'];

/**
 * One error's stack as the server symbolicates it with the project's source maps (original file, line, function and
 * the source lines around), asked for when the row is opened.
 */
function ErrorStack({ logId, hasStack }: { logId: number; hasStack: boolean }) {
  const { data, error, loading } = useApi<LogFrames>(hasStack ? `/logs/${logId}/frames` : null);
  if (!hasStack) return <p className="hint">No stack trace was recorded for this error.</p>;
  if (!data) return <LoadState loading={loading} error={error} />;
  return <Stack stack={data} />;
}

/** The session's errors: message, type and, opened, the stack with original frames where a source map covers them. */
export function ErrorsPane({ logs, ...timing }: PaneProps & { logs: readonly LogRow[] }) {
  const items = useMemo(
    () =>
      logs.filter(isError).map((log) => ({
        key: String(log.id),
        id: log.id,
        at: logTime(log),
        message: bodyText(log.body),
        type: text(log.attributes['exception.type']) ?? log.severity_text ?? 'ERROR',
        hasStack: text(log.attributes['exception.stacktrace']) !== undefined,
      })),
    [logs],
  );
  return (
    <SeekList
      label="Errors"
      items={items}
      {...timing}
      expandable
      empty="No errors in this session."
      row={(e) => (
        <>
          <Badge tone="bad">{e.type}</Badge>
          <span className="row-text">{e.message}</span>
        </>
      )}
      detail={(e) => <ErrorStack logId={e.id} hasStack={e.hasStack} />}
    />
  );
}
