import { escapeHtml } from './html';
import { DEMO_PAGE_SCRIPT } from './page-script';

/** What the demo page is rendered from. */
export interface DemoPageInput {
  /** The ingest key the SDK sends with; without one the page explains how to get one and does not load the SDK. */
  ingestKey: string | undefined;
  /** The app (`service.name`) the SDK reports as. */
  appName: string;
  /** Base URL of the query API links. */
  publicUrl: string;
  /** A port nothing listens on, for the network-failure button. */
  closedPort: number;
}

/** Query API lists linked from the page, and whether each takes the `session_id` filter. */
const QUERY_LISTS: ReadonlyArray<readonly [path: string, bySession: boolean]> = [
  ['logs', true],
  ['spans', true],
  ['metrics', true],
  ['replay/chunks', true],
  ['recipes', true],
  ['sessions', false],
];

const STYLE = `
body { font: 16px/1.5 system-ui, sans-serif; margin: 0; color: #1b1b1b; background: #fafafa; }
main { max-width: 52rem; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
code, pre { font: 14px/1.4 ui-monospace, monospace; }
pre { background: #fff; border: 1px solid #ccc; padding: .75rem; overflow-x: auto; white-space: pre-wrap; }
.buttons { display: flex; flex-wrap: wrap; gap: .5rem; }
button { font: inherit; padding: .35rem .8rem; border: 1px solid #555; border-radius: .3rem; background: #fff; cursor: pointer; }
button:hover { background: #eef; }
#shift-banner { height: 8rem; margin: 0; padding: 1rem; background: #fde8c8; }
.notice { border-left: 4px solid #b35900; padding: .5rem 1rem; background: #fff4e5; }
`;

const button = (action: string, label: string, extra = '') =>
  `<button type="button" data-action="${action}"${extra}>${escapeHtml(label)}</button>`;

const group = (title: string, buttons: string[]) =>
  `<section><h3>${escapeHtml(title)}</h3><div class="buttons">${buttons.join('')}</div></section>`;

function sdkTag(input: DemoPageInput): string {
  if (input.ingestKey === undefined) return '';
  return (
    `<script src="/demo/svc.min.js" data-api-key="${escapeHtml(input.ingestKey)}" ` +
    `data-service-name="${escapeHtml(input.appName)}" data-ingest-url="" data-debug></script>`
  );
}

function intro(input: DemoPageInput): string {
  if (input.ingestKey === undefined) {
    return `<p class="notice" role="alert">This server knows no ingest key to put in the page, so the SDK is not loaded
(with PostgreSQL the start-up keys are shown once; remembered keys stop being used once revoked or expired).
Create one with <code>npx svc-server keys create --scope ingest</code>, then open
<code>/demo/?api_key=&lt;the new key&gt;</code>.</p>`;
  }
  return `<p>This page loads the SDK with one script tag (<code>/demo/svc.min.js</code>, the global <code>Svc</code>;
it fetches the session recorder, <code>/demo/svc-recorder.min.js</code>, once replay starts) and
sends what it records to this server as the app <code>${escapeHtml(input.appName)}</code>. Debug mode is on: the
browser console shows the SDK's own warnings, prefixed with <code>[svc]</code>.</p>`;
}

/** The demo page: buttons that exercise every signal the SDK captures, and where to read the data back. */
export function renderDemoPage(input: DemoPageInput): string {
  const queryLinks = QUERY_LISTS.map(([path, bySession]) => {
    const url = new URL(`${input.publicUrl}/control-plane/${path}`);
    url.searchParams.set('app', input.appName);
    const href = escapeHtml(url.href);
    // The page script adds the session id to the links that can filter by it.
    return `<li><a${bySession ? ` data-query="${href}"` : ''} href="${href}">${href}</a></li>`;
  }).join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc browser SDK demo</title>
<link rel="icon" href="data:,">
<style>${STYLE}</style>
${sdkTag(input)}
</head>
<body>
<p id="shift-banner" hidden>This block appeared above the content and pushed it down: a layout shift.</p>
<main>
<h1>svc browser SDK demo</h1>
${intro(input)}
<p>Session id: <code id="session-id">…</code></p>

<h2>Exercise the signals</h2>
${group('Network', [
  button('fetch-ok', 'fetch: 200'),
  button('fetch-500', 'fetch: 500'),
  button('fetch-slow', 'fetch: slow (1.5 s)'),
  button('fetch-fail', 'fetch: network failure', ` data-port="${input.closedPort}"`),
  button('xhr', 'XMLHttpRequest'),
])}
${group('Console', [button('console-info', 'console.info'), button('console-warn', 'console.warn'), button('console-error', 'console.error')])}
${group('Errors', [button('throw', 'Throw an uncaught error'), button('reject', 'Unhandled promise rejection')])}
${group('SDK API', [button('log', 'Custom log'), button('metric', 'Custom metric')])}
${group('Page', [button('push', 'history.pushState'), button('hash', 'Hash change'), button('shift', 'Layout shift')])}

<h2>What happened</h2>
<pre id="result" role="status" aria-live="polite">Click a button.</pre>

<h2>See the data</h2>
<p>The SDK sends every few seconds, and when the page is hidden. Watch this session's replay with its console, network,
errors, traces and Web Vitals in the console: <a id="console-session" href="/sessions">this session in the console</a>
(it asks for the control key once per tab). Or read it back with the query API, sending the control
key printed by <code>npm start</code> as <code>Authorization: Bearer &lt;control key&gt;</code>, for example with the
command below the links (a plain link sends no key, so it answers 401):</p>
<ul>
${queryLinks}
</ul>
<pre id="curl"></pre>
</main>
<script>${DEMO_PAGE_SCRIPT}</script>
</body>
</html>
`;
}
