// Next.js runs this file in the browser before the app hydrates: the earliest place to start the SDK. initSvc() reads
// the NEXT_PUBLIC_SVC_* variables, which Next.js inlines at build time.
import { initSvc } from '@svc/browser/react';

initSvc();
