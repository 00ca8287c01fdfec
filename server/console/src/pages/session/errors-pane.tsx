import { useMemo } from 'react';
import { LogErrorStack } from '../../ui/stack';
import { Badge } from '../../ui/status';
import { bodyText, isError, logTime } from './logs';
import type { PaneProps } from './pane-props';
import { SeekList } from './seek-list';
import type { LogRow } from './types';

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

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
      detail={(e) => <LogErrorStack logId={e.id} hasStack={e.hasStack} />}
    />
  );
}
