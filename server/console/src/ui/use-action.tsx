import { useState } from 'react';
import { ApiError } from '../api/client';

/** Why an action failed: the server's message and, for a 400, the field it names. */
export interface ActionFailure {
  message: string;
  field?: string;
}

export function failureOf(error: unknown): ActionFailure {
  if (error instanceof ApiError) return { message: error.message, field: error.field };
  return { message: String(error) };
}

/**
 * A change a button or form makes: `run` calls `action` (which reloads or reports what changed), `busy` while it runs
 * (so the control can be disabled), `error` when it failed. A new run clears the previous error.
 */
export function useAction<A extends unknown[]>(action: (...args: A) => Promise<unknown>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ActionFailure>();
  const run = async (...args: A) => {
    setBusy(true);
    setError(undefined);
    try {
      await action(...args);
    } catch (e) {
      setError(failureOf(e));
    } finally {
      setBusy(false);
    }
  };
  return { run, busy, error };
}

/** The failure of an action, announced (`role="alert"`); nothing when there is none. */
export function ActionError({
  error,
  as: Tag = 'p',
  className = 'state-error',
}: {
  error: ActionFailure | undefined;
  as?: 'p' | 'span';
  className?: string;
}) {
  if (!error) return null;
  return (
    <Tag role="alert" className={className}>
      {error.message}
    </Tag>
  );
}
