import svc from '@svc/build/vite';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { echoApi } from './echo-api.ts';
import { loyaltyApi } from './loyalty-api.ts';

export default defineConfig({
  plugins: [
    react(),
    echoApi(),
    loyaltyApi(),
    // On `vite build` only: a debug ID in each emitted file and its source map, then the maps' upload to SVC_URL with
    // the control key in SVC_CONTROL_KEY (stored under the release VITE_SVC_SERVICE_VERSION when set, the one the SDK
    // sends), and their removal from dist/ so they are never served.
    svc({ release: process.env.VITE_SVC_SERVICE_VERSION }),
  ],
});
