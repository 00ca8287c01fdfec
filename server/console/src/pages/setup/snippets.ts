/** What the snippets are filled in with: the project's ingest key (or a placeholder), one of its app names, the server. */
export interface SnippetValues {
  key: string;
  app: string;
  ingestUrl: string;
}

/** The four ways to add the SDK (docs/sdk.md, "Set-up") and the build plugin line, as text to copy. */
export function snippets({ key, app, ingestUrl }: SnippetValues) {
  return {
    npm: `npm install @svc/browser

// at application start, before any user interaction
import { initBrowserSDK } from '@svc/browser';

initBrowserSDK({
  apiKey: '${key}',
  serviceName: '${app}',
  ingestUrl: '${ingestUrl}',
});`,
    auto: `# .env (Vite; NEXT_PUBLIC_SVC_… for Next.js, REACT_APP_SVC_… for Create React App)
VITE_SVC_API_KEY=${key}
VITE_SVC_SERVICE_NAME=${app}
VITE_SVC_INGEST_URL=${ingestUrl}

// the app's entry module
import '@svc/browser/auto';`,
    script: `<script src="https://unpkg.com/@svc/browser/dist/cdn/svc.min.js"
        data-api-key="${key}" data-service-name="${app}"
        data-ingest-url="${ingestUrl}"></script>`,
    build: `// vite.config.ts: on \`vite build\`, debug IDs and source-map upload (npm install --save-dev @svc/build)
import { defineConfig } from 'vite';
import svc from '@svc/build/vite';

export default defineConfig({ plugins: [svc()] });

# in the build's environment: a control key, never shipped in the bundle
SVC_URL=${ingestUrl} SVC_CONTROL_KEY=<control key> npm run build`,
  };
}
