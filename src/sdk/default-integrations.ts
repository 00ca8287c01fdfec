import type { Integration } from '../core/integration';
import { replayIntegration } from '../replay/integration';
import {
  consoleIntegration,
  errorsIntegration,
  navigationIntegration,
  vitalsIntegration,
} from '../signals/integrations';
import {
  documentLoadIntegration,
  fetchIntegration,
  interactionsIntegration,
  xhrIntegration,
} from '../tracing/integrations';

/**
 * The integrations `initBrowserSDK` starts unless the `integrations` option changes the list: every signal, in the
 * order the SDK started them before they were integrations (shutdown undoes their patches in reverse order).
 */
export const defaultIntegrations = (): Integration[] => [
  replayIntegration(),
  xhrIntegration(),
  documentLoadIntegration(),
  interactionsIntegration(),
  fetchIntegration(),
  errorsIntegration(),
  consoleIntegration(),
  vitalsIntegration(),
  navigationIntegration(),
];
