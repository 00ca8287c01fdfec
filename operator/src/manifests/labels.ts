import { ZERO_VERSION } from './values.js';

/** Recommended Kubernetes labels on every object svc-zero installs, so `kubectl get all -l app.kubernetes.io/part-of=svc-zero` finds them. */
export function labels(component: string): Record<string, string> {
  return {
    ...selectorLabels(component),
    'app.kubernetes.io/part-of': 'svc-zero',
    'app.kubernetes.io/version': ZERO_VERSION,
  };
}

/** The stable subset used by selectors (a Deployment's selector is immutable, so it carries no version). */
export function selectorLabels(component: string): Record<string, string> {
  return { 'app.kubernetes.io/name': 'svc-zero', 'app.kubernetes.io/component': component };
}
