import { useCallback, useEffect, useState } from 'react';
import { ApiError, api, type Query } from './client';

export interface ApiState<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  /** Asks again (after a change made from the page). */
  reload: () => void;
}

/**
 * GETs `path` with `query` whenever either changes, aborting the request it replaces so an old answer never
 * overwrites a newer one. `path` null waits (e.g. until an id is known).
 */
export function useApi<T>(path: string | null, query: Query = {}): ApiState<T> {
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({ loading: path !== null });
  const [generation, setGeneration] = useState(0);
  const key = path === null ? null : `${path}?${JSON.stringify(query)}`;
  useEffect(() => {
    if (path === null) return;
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true, error: undefined }));
    api.get<T>(path, query, controller.signal).then(
      (data) => setState({ data, loading: false }),
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setState({
          loading: false,
          error: error instanceof ApiError ? error : new ApiError(0, 'network', String(error)),
        });
      },
    );
    return () => controller.abort();
    // `key` stands for path and query by value, so a new but equal query object asks nothing.
  }, [key, generation]);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}
