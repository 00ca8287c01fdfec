// The SDK's one line: it configures itself from the VITE_SVC_* variables at build time (VITE_SVC_SERVICE_VERSION is
// the release) and starts capturing before anything else in the app runs.
import '@svc/browser/auto';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
