import { useState, type ReactNode } from 'react';
import { onListKeyDown } from '../../ui/data-table';
import { formatOffset, lastAtOrBefore } from './offset';

export interface SeekItem {
  key: string;
  /** Epoch ms. */
  at: number;
}

/**
 * A pane's rows in time order: each row is a button that seeks the replay to its moment (click, Enter or Space),
 * arrow keys move between rows, and the row playback has last passed is `aria-current="time"`. `detail` renders
 * under a row (an expanded request, an error's stack).
 */
export function SeekList<T extends SeekItem>({
  label,
  items,
  start,
  now,
  onSeek,
  row,
  detail,
  expandable = false,
  empty,
}: {
  label: string;
  items: readonly T[];
  /** Epoch ms of offset 0. */
  start: number;
  /** Epoch ms playback is at; undefined without a replay. */
  now: number | undefined;
  onSeek: (item: T) => void;
  row: (item: T) => ReactNode;
  detail?: (item: T) => ReactNode;
  /** Selecting a row also opens its detail, and selecting it again closes it (aria-expanded); else details always show. */
  expandable?: boolean;
  empty: string;
}) {
  const [expandedKey, setExpandedKey] = useState<string | undefined>();
  if (items.length === 0) return <p className="state">{empty}</p>;
  const current = now === undefined ? -1 : lastAtOrBefore(items, now);
  return (
    <ol className="seek-list" aria-label={label} onKeyDown={onListKeyDown}>
      {items.map((item, index) => {
        const open = !expandable || expandedKey === item.key;
        return (
          <li key={item.key} className={index === current ? 'current' : undefined}>
            <button
              type="button"
              className="seek-row"
              data-row
              data-offset-ms={Math.round(item.at - start)}
              aria-current={index === current ? 'time' : undefined}
              aria-expanded={expandable ? open : undefined}
              onClick={() => {
                if (expandable) setExpandedKey((key) => (key === item.key ? undefined : item.key));
                onSeek(item);
              }}
            >
              <span className="offset">{formatOffset(item.at - start)}</span>
              {row(item)}
            </button>
            {detail && open && <div className="row-detail">{detail(item)}</div>}
          </li>
        );
      })}
    </ol>
  );
}
