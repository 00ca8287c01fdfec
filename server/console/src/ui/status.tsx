import type { ReactNode } from 'react';
import type { ApiError } from '../api/client';

/** Loading, failure and empty states, each announced to screen readers where it appears. */
export function LoadState({
  loading,
  error,
  empty,
  children,
}: {
  loading: boolean;
  error?: ApiError;
  empty?: boolean;
  children?: ReactNode;
}) {
  if (error) {
    return (
      <p role="alert" className="state state-error">
        {error.message}
        {error.field ? ` (field: ${error.field})` : ''}
      </p>
    );
  }
  if (loading)
    return (
      <p role="status" className="state">
        Loading…
      </p>
    );
  if (empty)
    return (
      <p role="status" className="state">
        {children ?? 'Nothing here yet.'}
      </p>
    );
  return null;
}

/** A small coloured label (status, severity, rating). `tone` picks the colour; the text carries the meaning. */
export function Badge({ tone, children }: { tone: 'good' | 'warn' | 'bad' | 'neutral' | 'info'; children: ReactNode }) {
  return <span className={`badge badge-${tone}`}>{children}</span>;
}
