import { Badge } from '../../ui/status';
import { bodyText, logTime, severityLabel, severityTone } from './logs';
import { SeekList } from './seek-list';
import type { PaneProps } from './pane-props';
import type { LogRow } from './types';

/** Every log record of the session (console output, SDK logs, errors), oldest first. */
export function ConsolePane({ logs, capped, ...timing }: PaneProps & { logs: readonly LogRow[]; capped: boolean }) {
  const items = logs.map((log) => ({ key: String(log.id), at: logTime(log), log }));
  return (
    <>
      <SeekList
        label="Console and logs"
        items={items}
        {...timing}
        empty="This session logged nothing."
        row={({ log }) => (
          <>
            <Badge tone={severityTone(log)}>{severityLabel(log)}</Badge>
            <span className="row-text">{bodyText(log.body)}</span>
          </>
        )}
      />
      {capped && <p className="hint">Only the first rows are listed.</p>}
    </>
  );
}
