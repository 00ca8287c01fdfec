/** What the snippets are filled in with: the project's ingest key (or a placeholder), one of its app names, the server. */
export interface SnippetValues {
  key: string;
  app: string;
  ingestUrl: string;
}

/**
 * The ways to add the SDK (docs/sdk.md, "Set-up") and the build plugin line, as text to copy. The packages are not on
 * the npm registry yet: they install from tarballs packed in an svc checkout, as the README says.
 */
export function snippets({ key, app, ingestUrl }: SnippetValues) {
  return {
    npm: `# not on the npm registry yet: \`npm pack\` in an svc checkout, then in your app
npm install <checkout>/svc-browser-0.1.0.tgz

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
    script: `<!-- svc.min.js and svc-recorder.min.js from the packed SDK's dist/cdn/, served by your site -->
<script src="/svc.min.js"
        data-api-key="${key}" data-service-name="${app}"
        data-ingest-url="${ingestUrl}"></script>`,
    build: `# \`npm pack -w bundler-plugin\` in an svc checkout, then in your app
npm install --save-dev <checkout>/svc-build-0.1.0.tgz

// vite.config.ts: on \`vite build\`, debug IDs and source-map upload
import { defineConfig } from 'vite';
import svc from '@svc/build/vite';

export default defineConfig({ plugins: [svc()] });

# in the build's environment: a control key, never shipped in the bundle
SVC_URL=${ingestUrl} SVC_CONTROL_KEY=<control key> npm run build`,
  };
}
