import { useEffect, useMemo, useState } from 'react';
import { Badge } from '../../ui/status';
import { bodyText, isError, logTime } from './logs';
import type { PaneProps } from './pane-props';
import { SeekList } from './seek-list';
import { parseStack, symbolicatedStacks, type ShownFrame } from './stack';
import type { LogRow } from './types';

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

function Frames({ frames, symbolicated }: { frames: readonly ShownFrame[]; symbolicated: boolean }) {
  if (frames.length === 0) return <p className="hint">No stack trace was recorded for this error.</p>;
  return (
    <>
      <p className="hint">{symbolicated ? 'Stack, symbolicated with the uploaded source maps:' : 'Stack as recorded (no source map applied):'}</p>
      <ol className="frames" aria-label="Stack frames">
        {frames.map((f, i) => (
          <li key={i}>
            <span className="fn">{f.original?.function ?? f.function}</span>{' '}
            <span className="mono">{f.original?.location ?? f.location}</span>
            {f.original && <span className="hint mono"> (ran at {f.location})</span>}
          </li>
        ))}
      </ol>
    </>
  );
}

/** The session's errors: message, type and stack frames (symbolicated where the issues API has them). */
export function ErrorsPane({ sessionId, logs, ...timing }: PaneProps & { sessionId: string; logs: readonly LogRow[] }) {
  const items = useMemo(
    () =>
      logs.filter(isError).map((log) => ({
        key: String(log.id),
        at: logTime(log),
        message: bodyText(log.body),
        type: text(log.attributes['exception.type']) ?? log.severity_text ?? 'ERROR',
        stack: text(log.attributes['exception.stacktrace']),
      })),
    [logs],
  );
  const [symbolicated, setSymbolicated] = useState<Map<string, ShownFrame[]>>(new Map());
  useEffect(() => {
    const withStacks = items.flatMap((e) => (e.stack ? [{ type: e.type, stack: e.stack }] : []));
    if (withStacks.length === 0) return;
    const controller = new AbortController();
    const since = Math.min(...items.map((e) => e.at));
    symbolicatedStacks(sessionId, withStacks, since, controller.signal).then(setSymbolicated, () => {
      // Without the issues API's frames the raw ones are shown, which is what a failure leaves anyway.
    });
    return () => controller.abort();
  }, [items, sessionId]);

  return (
    <SeekList
      label="Errors"
      items={items}
      {...timing}
      empty="No errors in this session."
      row={(e) => (
        <>
          <Badge tone="bad">{e.type}</Badge>
          <span className="row-text">{e.message}</span>
        </>
      )}
      detail={(e) => {
        const mapped = e.stack ? symbolicated.get(e.stack) : undefined;
        return <Frames frames={mapped ?? (e.stack ? parseStack(e.stack) : [])} symbolicated={mapped !== undefined} />;
      }}
    />
  );
}
