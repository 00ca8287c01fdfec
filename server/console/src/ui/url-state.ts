import { useCallback } from 'react';
import { useLocation, useSearch } from 'wouter';

/** Parameters that select a page of a list; any other change starts again from the first page. */
const PAGING = 'cursor';

/**
 * A view's state (filters, sort, page, selection) lives in the URL's query, so a link reproduces the view and the
 * back button undoes a change. `update` merges a patch (null or '' removes a parameter) and drops the page cursor
 * unless the patch sets it.
 */
export function useUrlState(): [
  URLSearchParams,
  (patch: Record<string, string | null | undefined>, options?: { replace?: boolean }) => void,
] {
  const search = useSearch();
  const [path, navigate] = useLocation();
  const params = new URLSearchParams(search);
  const update = useCallback(
    (patch: Record<string, string | null | undefined>, options: { replace?: boolean } = {}) => {
      const next = new URLSearchParams(search);
      if (!(PAGING in patch)) next.delete(PAGING);
      for (const [name, value] of Object.entries(patch)) {
        if (value === null || value === undefined || value === '') next.delete(name);
        else next.set(name, value);
      }
      const query = next.toString();
      navigate(`${path}${query ? `?${query}` : ''}`, { replace: options.replace ?? false });
    },
    [search, path, navigate],
  );
  return [params, update];
}

/** The query parameters of `params` named in `names`, as an API query (absent ones left out). */
export function pick(params: URLSearchParams, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = params.get(name);
    if (value !== null && value !== '') out[name] = value;
  }
  return out;
}
