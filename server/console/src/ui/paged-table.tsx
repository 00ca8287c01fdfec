import type { ReactNode } from 'react';
import type { Page } from '../api/client';
import type { ApiState } from '../api/use-api';
import { DataTable, type DataTableProps } from './data-table';
import { LoadState } from './status';

/**
 * A listing the way every list page shows it: loading and error states, `empty` when nothing matches, else the page's
 * rows in a DataTable with its pager.
 */
export function PagedTable<T>({
  list,
  empty,
  ...table
}: { list: ApiState<Page<T>>; empty: ReactNode } & Omit<DataTableProps<T>, 'rows' | 'nextCursor'>) {
  const { data, error, loading } = list;
  return (
    <>
      <LoadState loading={loading && !data} error={error} empty={data?.data.length === 0}>
        {empty}
      </LoadState>
      {data && data.data.length > 0 && <DataTable {...table} rows={data.data} nextCursor={data.next_cursor} />}
    </>
  );
}
