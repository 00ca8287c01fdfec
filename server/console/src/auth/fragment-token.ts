import { useState } from 'react';

/**
 * The one-time token of a set-up, invitation or reset link (`#token=…`): fragments never reach a server. Taken once
 * and wiped from the address bar and history, so the link cannot be copied from the tab afterwards.
 */
export function useFragmentToken(): string | null {
  const [token] = useState(() => {
    const found = new URLSearchParams(location.hash.slice(1)).get('token');
    if (found) history.replaceState(history.state, '', location.pathname + location.search);
    return found;
  });
  return token;
}
