import { parseResponse, type ClientRequestOptions, type ClientResponse } from 'hono/client';
import { useCallback, useEffect, useState } from 'react';
import { ApiError } from './client';

export interface ApiState<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  /** Asks again (after a change made from the page). */
  reload: () => void;
}

/** A typed client's GET (api/typed.ts), given the options that carry the abort signal. */
export type Request<R> = (options: ClientRequestOptions) => Promise<R>;
/** The success body of a typed client's answer: errors never reach it, `apiFetch` throws them as ApiError. */
export type Answer<R extends ClientResponse<unknown>> = Awaited<ReturnType<typeof parseResponse<R>>>;

/**
 * Makes `request` whenever `deps` change by value, aborting the request it replaces so an old answer never overwrites
 * a newer one. `request` null waits (e.g. until an id is known).
 */
export function useApi<R extends ClientResponse<unknown>>(
  request: Request<R> | null,
  deps: readonly unknown[] = [],
): ApiState<Answer<R>> {
  type T = Answer<R>;
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({ loading: request !== null });
  const [generation, setGeneration] = useState(0);
  const key = request === null ? null : JSON.stringify(deps);
  useEffect(() => {
    if (request === null) return;
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true, error: undefined }));
    // parseResponse's answer type is Answer<R>, written out once here for callers.
    (parseResponse(request({ init: { signal: controller.signal } })) as Promise<T>).then(
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
    // `key` stands for the request by value (whether there is one, and its deps), so a new but equal query asks nothing.
  }, [key, generation]);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}
