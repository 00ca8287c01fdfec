/**
 * The control key lives in this tab only (sessionStorage) and leaves it only in the Authorization header: never in a
 * URL, a cookie or local storage, so closing the tab signs out and another site's link cannot carry it.
 */
const STORAGE_KEY = 'svc.console.key';

export function readKey(): string | null {
  try {
    return sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

export function storeKey(key: string): void {
  sessionStorage.setItem(STORAGE_KEY, key);
}

export function forgetKey(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}

/**
 * Links printed by `svc-server start` and old viewer links carry the key in the fragment (`#key=…`), which browsers
 * never send to a server. Take it into the tab's storage and wipe it from the address bar and history at once.
 * Returns the other fragment parameters (an old viewer link's `session`, `t`).
 */
export function adoptKeyFromFragment(): URLSearchParams {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const key = fragment.get('key');
  if (key) {
    storeKey(key);
    fragment.delete('key');
    history.replaceState(history.state, '', location.pathname + location.search);
  }
  return fragment;
}
