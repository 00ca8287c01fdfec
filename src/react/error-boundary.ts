import { Component, type ErrorInfo, type ReactNode } from 'react';
import { captureException } from './helpers';

export interface SvcErrorBoundaryProps {
  children?: ReactNode;
  /** Rendered instead of the children after a render error; a function receives the error and a reset callback. */
  fallback?: ReactNode | ((error: Error, reset: () => void) => ReactNode);
  /** Called after the error was reported, e.g. to show a toast. */
  onError?: (error: Error, info: ErrorInfo) => void;
}

interface State {
  error: Error | undefined;
}

/**
 * Catches render errors below it, reports them through the SDK with React's component stack (attribute
 * `react.component_stack`) and renders `fallback`. Works without holding the SDK reference.
 */
export class SvcErrorBoundary extends Component<SvcErrorBoundaryProps, State> {
  override state: State = { error: undefined };

  static getDerivedStateFromError(error: unknown): State {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    captureException(error, { attrs: { 'react.component_stack': info.componentStack || '', 'error.handled': true } });
    const reported = error instanceof Error ? error : new Error(String(error));
    if (this.props.onError) this.props.onError(reported, info);
  }

  private readonly reset = (): void => this.setState({ error: undefined });

  override render(): ReactNode {
    const { error } = this.state;
    if (error === undefined) return this.props.children;
    const { fallback } = this.props;
    return typeof fallback === 'function' ? fallback(error, this.reset) : (fallback ?? null);
  }
}
