export {
  loadKubeConfig,
  locateKubeConfig,
  KubeConfigError,
  type KubeConfigOptions,
  type LoadedKubeConfig,
} from './config.js';
export { apiStatusOf, describeApiError, type ApiStatus } from './errors.js';
export { withSignal } from './signal.js';
