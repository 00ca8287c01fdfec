import { useEffect } from 'react';
import { setupClient } from '../../api/typed';
import { useApi } from '../../api/use-api';

/** How often an empty project is asked again whether its first event has arrived. */
export const WAIT_POLL_MS = 2_000;

/** The project's set-up, asked again every {@link WAIT_POLL_MS} until its first data has arrived. */
export function useSetup() {
  const state = useApi((o) => setupClient.index.$get(undefined, o));
  const { data, reload } = state;
  const waiting = data !== undefined && data.first_data === null;
  useEffect(() => {
    if (!waiting) return;
    const timer = setTimeout(reload, WAIT_POLL_MS);
    return () => clearTimeout(timer);
  }, [data, waiting, reload]);
  return state;
}
