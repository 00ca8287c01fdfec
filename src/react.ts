/**
 * `@svc/browser/react`: the React entry. For now it carries the SDK's identity and the configuration types that its
 * helpers will use. Importing it has no side effects.
 */
export { SDK_NAME, SDK_VERSION } from './version';
export type {
  BrowserSDKConfig,
  ConfigWarningHandler,
  PropagationOptions,
  ReplayOptions,
  ReplaySamplingOptions,
  ResolvedConfig,
  VitalsOptions,
} from './config/types';
