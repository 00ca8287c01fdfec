import {
  Observable,
  type ConfigurationOptions,
  type ObservableMiddleware,
  type RequestContext,
  type ResponseContext,
} from '@kubernetes/client-node';

/**
 * Per-call options for client-node's typed APIs that cancel the request when `signal` aborts: client-node 1.4 has no
 * signal parameter, but its RequestContext carries one that node-fetch honours (the call then rejects with an
 * AbortError). The typed APIs take observable-style middleware, like client-node's own setHeaderOptions().
 */
export function withSignal(
  signal: AbortSignal,
  options?: ConfigurationOptions<ObservableMiddleware>,
): ConfigurationOptions<ObservableMiddleware> {
  const middleware: ObservableMiddleware = {
    pre: (context: RequestContext) => {
      context.setSignal(signal);
      return new Observable(Promise.resolve(context));
    },
    post: (response: ResponseContext) => new Observable(Promise.resolve(response)),
  };
  return { ...options, middleware: [...(options?.middleware ?? []), middleware], middlewareMergeStrategy: 'append' };
}
