import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { adoptKeyFromFragment } from './auth/key-store';
import './styles.css';

// Old viewer links (`/viewer/#key=…&session=…&t=…`) arrive here through a redirect that keeps the fragment.
const fragment = adoptKeyFromFragment();
const legacySession = fragment.get('session');
if (legacySession) {
  const t = fragment.get('t');
  history.replaceState(
    null,
    '',
    `/session/${encodeURIComponent(legacySession)}${t ? `?t=${encodeURIComponent(t)}` : ''}`,
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
