import { createHash } from 'node:crypto';

/** What the landing page links to; the demo only when the server serves it (`--demo-sdk`). */
export interface LandingLinks {
  demo: boolean;
}

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1b1f24;background:#fff}
h1{font-size:1.6rem}h2{font-size:1.2rem;margin-top:2rem}a{color:#0b57d0}code{font-size:.95em}li{margin:.3rem 0}`;

/**
 * No script runs here, and the one inline style is allowed by its hash rather than by 'unsafe-inline', so nothing
 * injected into the page (there is nothing dynamic in it today) could run or restyle it.
 */
export const LANDING_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The docs a newcomer needs first, from the repository's docs/ folder. */
const DOCS: ReadonlyArray<readonly [file: string, about: string]> = [
  ['server.md', 'running the server: tenancy, projects and keys, storage, retention'],
  ['ingest.md', 'ingest endpoints, replay bodies and their errors'],
  ['query-api.md', 'reading data back through the control plane'],
  ['viewer.md', 'the session replay viewer'],
  ['sdk.md', 'the browser SDK'],
  ['incidents.md', 'incidents'],
  ['notifications.md', 'notification channels and rules'],
  ['cost.md', 'cost tracking'],
];

/** `GET /` for people: where to go from here. */
export function renderLandingPage(links: LandingLinks): string {
  const item = (href: string, text: string, about: string) => `<li><a href="${href}">${text}</a>: ${about}</li>`;
  const open = [
    item('/viewer/', 'Session replay viewer', 'sessions with their replay, logs, errors and network requests (asks for a control or read key)'),
    ...(links.demo ? [item('/demo/', 'SDK demo page', 'a page that runs the browser SDK against this server')] : []),
    item('/docs/api', 'API reference', 'every endpoint, tried from the page with a key you type in (never stored)'),
    item('/openapi.json', 'OpenAPI document', 'every endpoint with its parameters, answers and the key it needs'),
    item('/healthz', 'Health check', 'the server and its database answer'),
  ];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>svc reference server</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>svc reference server</h1>
<p>This server receives telemetry (OpenTelemetry traces, logs and metrics, and session replays) and serves it back
through its control-plane API.</p>
<h2>Open</h2>
<ul>
${open.join('\n')}
</ul>
<h2>Send and read data</h2>
<ul>
<li>Ingest: <code>POST /otlp/v1/traces</code>, <code>/otlp/v1/logs</code>, <code>/otlp/v1/metrics</code> and
<code>/ingest/replay/chunk</code>, with an ingest key in the <code>X-API-Key</code> header.</li>
<li>Control plane: <code>/control-plane/…</code>, with a control key as <code>Authorization: Bearer &lt;key&gt;</code>;
projects are managed at <code>/control-plane/projects</code> with an admin key.</li>
<li>Keys, apps and projects on the server's host: <code>npx svc-server --help</code>.</li>
</ul>
<h2>Documentation</h2>
<p>The guides are Markdown files in the <code>docs/</code> folder of the svc source repository:</p>
<ul>
${DOCS.map(([file, about]) => `<li><code>docs/${file}</code>: ${about}</li>`).join('\n')}
</ul>
</main>
</body>
</html>
`;
}
