// The SDK, started before anything else in the app runs: configured from the VITE_SVC_* variables at build time, plus
// the release this build is, VITE_APP_VERSION, sent as `service.version` (issues tell a regression by it).
import { initSvc } from '@svc/browser/react';

initSvc({ serviceVersion: import.meta.env.VITE_APP_VERSION });
