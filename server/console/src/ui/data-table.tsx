import { Fragment, type KeyboardEvent, type ReactNode } from 'react';
import { Link } from 'wouter';
import { useUrlState } from './url-state';

export interface Column<T> {
  /** Column id; also the API's `sort` value when `sortable`. */
  id: string;
  header: string;
  cell: (row: T) => ReactNode;
  sortable?: boolean;
  /** Right-aligned numbers. */
  numeric?: boolean;
}

export interface DataTableProps<T> {
  caption: string;
  columns: ReadonlyArray<Column<T>>;
  rows: readonly T[];
  rowKey: (row: T) => string;
  /** Where a row leads; the first cell becomes a link to it, so rows are reachable by keyboard. */
  rowHref?: (row: T) => string;
  /** Highlighted row (e.g. the one playback is at). */
  activeKey?: string;
  /** What the active row opens, shown in a full-width row under it; its link then says whether it is expanded. */
  detail?: (row: T) => ReactNode;
  nextCursor?: string | null;
  /** The sort when the URL names none. */
  defaultSort?: { id: string; order: 'asc' | 'desc' };
  /** The API sorts largest or newest first only: a header click picks the column, never an ascending order. */
  descendingOnly?: boolean;
  /** Rows a person can pick, a checkbox each and one for the whole page: what a bulk action acts on. */
  selection?: Selection<T>;
}

export interface Selection<T> {
  selected: ReadonlySet<string>;
  onChange: (next: Set<string>) => void;
  /** How a row's checkbox is named to screen readers: "Select <label>". */
  label: (row: T) => string;
}

/** The checkbox of the whole page: checked when every row is, mixed when some are. */
function SelectPage<T>({
  rows,
  rowKey,
  selection,
}: {
  rows: readonly T[];
  rowKey: (row: T) => string;
  selection: Selection<T>;
}) {
  const keys = rows.map(rowKey);
  const count = keys.filter((k) => selection.selected.has(k)).length;
  return (
    <input
      type="checkbox"
      aria-label="Select every row of this page"
      checked={count > 0 && count === keys.length}
      ref={(el) => {
        if (el) el.indeterminate = count > 0 && count < keys.length;
      }}
      onChange={(e) => selection.onChange(new Set(e.currentTarget.checked ? keys : []))}
    />
  );
}

/**
 * A list the way every console page shows one: sortable headers and keyset paging whose state is in the URL
 * (`sort`, `order`, `cursor`), a caption for screen readers, and rows that are links.
 */
export function DataTable<T>({
  caption,
  columns,
  rows,
  rowKey,
  rowHref,
  activeKey,
  detail,
  nextCursor,
  defaultSort,
  descendingOnly = false,
  selection,
}: DataTableProps<T>) {
  const [params, update] = useUrlState();
  const sort = params.get('sort') ?? defaultSort?.id;
  const order = descendingOnly ? 'desc' : ((params.get('order') ?? defaultSort?.order ?? 'desc') as 'asc' | 'desc');
  const setSort = (id: string) =>
    update({ sort: id, order: descendingOnly ? null : sort === id && order === 'desc' ? 'asc' : 'desc' });
  return (
    <div className="table-wrap">
      <table className="data-table">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {selection && (
              <th scope="col" className="select-cell">
                <SelectPage rows={rows} rowKey={rowKey} selection={selection} />
              </th>
            )}
            {columns.map((col) => (
              <th
                key={col.id}
                scope="col"
                className={col.numeric ? 'numeric' : undefined}
                aria-sort={col.sortable && sort === col.id ? (order === 'asc' ? 'ascending' : 'descending') : undefined}
              >
                {col.sortable ? (
                  <button type="button" className="sort-button" onClick={() => setSort(col.id)}>
                    {col.header}
                    <span aria-hidden="true">{sort === col.id ? (order === 'asc' ? ' ▲' : ' ▼') : ''}</span>
                  </button>
                ) : (
                  col.header
                )}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const key = rowKey(row);
            const href = rowHref?.(row);
            const active = key === activeKey;
            return (
              <Fragment key={key}>
                <tr className={active ? 'active' : undefined} aria-current={active ? 'true' : undefined}>
                  {selection && (
                    <td className="select-cell">
                      <input
                        type="checkbox"
                        aria-label={`Select ${selection.label(row)}`}
                        checked={selection.selected.has(key)}
                        onChange={(e) => {
                          const next = new Set(selection.selected);
                          if (e.currentTarget.checked) next.add(key);
                          else next.delete(key);
                          selection.onChange(next);
                        }}
                      />
                    </td>
                  )}
                  {columns.map((col, i) => (
                    <td key={col.id} className={col.numeric ? 'numeric' : undefined}>
                      {i === 0 && href ? (
                        <Link href={href} aria-expanded={detail ? active : undefined}>
                          {col.cell(row)}
                        </Link>
                      ) : (
                        col.cell(row)
                      )}
                    </td>
                  ))}
                </tr>
                {active && detail && (
                  <tr className="detail-row">
                    <td colSpan={columns.length + (selection ? 1 : 0)}>{detail(row)}</td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
      <Pager nextCursor={nextCursor ?? null} />
    </div>
  );
}

/** Keyset paging: first page, and the next one by the cursor the server gave. Back returns to the page before. */
function Pager({ nextCursor }: { nextCursor: string | null }) {
  const [params, update] = useUrlState();
  const onFirst = params.has('cursor');
  if (!onFirst && !nextCursor) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" disabled={!onFirst} onClick={() => update({ cursor: null })}>
        First page
      </button>
      <button type="button" disabled={!nextCursor} onClick={() => nextCursor && update({ cursor: nextCursor })}>
        Next page
      </button>
    </nav>
  );
}

/** Arrow keys move between the focusable rows of a list (a listbox-like pane); Enter is left to the row's own control. */
export function onListKeyDown(event: KeyboardEvent<HTMLElement>): void {
  if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
  const items = Array.from(event.currentTarget.querySelectorAll<HTMLElement>('[data-row]'));
  const index = items.indexOf(document.activeElement as HTMLElement);
  const next = items[index + (event.key === 'ArrowDown' ? 1 : -1)];
  if (next) {
    event.preventDefault();
    next.focus();
  }
}
