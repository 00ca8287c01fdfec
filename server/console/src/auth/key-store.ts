/**
 * The control key lives in this tab only (sessionStorage) and leaves it only in the Authorization header: never in a
 * URL, a cookie or local storage, so closing the tab signs out and another site's link cannot carry it.
 */
const STORAGE_KEY = 'svc.console.key';
/** The project an admin key acts on (the header switcher's choice), for this tab only like the key. */
const PROJECT_KEY = 'svc.console.project';

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
  sessionStorage.removeItem(PROJECT_KEY);
}

export function readProject(): string | null {
  try {
    return sessionStorage.getItem(PROJECT_KEY);
  } catch {
    return null;
  }
}

export function storeProject(id: string): void {
  sessionStorage.setItem(PROJECT_KEY, id);
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
    // Another key may name another project: an admin key's earlier choice does not carry over.
    sessionStorage.removeItem(PROJECT_KEY);
    storeKey(key);
    fragment.delete('key');
    history.replaceState(history.state, '', location.pathname + location.search);
  }
  return fragment;
}

/**
 * A console link pasted into a tab that is already open on the console changes only the fragment: no page load, so
 * `main.tsx` never sees it. Adopts such a key as a page load would and calls `onKey`; returns the unsubscribe.
 */
export function watchKeyFragment(onKey: () => void): () => void {
  const listener = () => {
    if (!new URLSearchParams(location.hash.slice(1)).get('key')) return;
    adoptKeyFromFragment();
    onKey();
  };
  window.addEventListener('hashchange', listener);
  return () => window.removeEventListener('hashchange', listener);
}
