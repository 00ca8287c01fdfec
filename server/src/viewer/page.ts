import type { ViewerAssets } from './assets';

/** Where the page's files are served; `{file}` is an asset name such as `viewer.3f2a9c1b07de.js`. */
export const VIEWER_ASSET_PREFIX = '/viewer/assets/';

/**
 * The viewer page's Content-Security-Policy. Stored telemetry is attacker-controlled, so only the server's own scripts
 * run: no inline script, no eval, and the replay iframe (sandboxed by rrweb without `allow-scripts`, and about:blank,
 * so it inherits this policy) can run nothing either. Inline styles are allowed because the replayer writes the
 * recorded page's CSS into the iframe as `<style>` elements. Images, fonts and media of the recorded page load from
 * wherever the page had them, as a faithful replay needs; `Referrer-Policy: no-referrer` keeps the viewer's address
 * out of those requests. The page talks to its own origin only.
 */
export const VIEWER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  'img-src * data: blob:',
  'font-src * data:',
  'media-src * data: blob:',
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The static HTML of `GET /viewer/`: everything it shows is filled in by its script from the control-plane API. */
export function renderViewerPage(assets: ViewerAssets): string {
  const url = (name: string) => `${VIEWER_ASSET_PREFIX}${name}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Session replay · svc</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${url(assets.playerStyle.name)}">
<link rel="stylesheet" href="${url(assets.pageStyle.name)}">
<script defer src="${url(assets.playerScript.name)}"></script>
<script type="module" src="${url(assets.pageScript.name)}"></script>
</head>
<body>
<header>
<h1><a href="#">Session replay</a></h1>
<form id="key-form" class="key-form">
<label for="key-input">Control or read key</label>
<input id="key-input" name="key" type="password" autocomplete="off" spellcheck="false" required
 aria-describedby="key-state" placeholder="svc_control_…">
<button type="submit">Use key</button>
<button type="button" id="forget-key">Forget key</button>
<p id="key-state" class="key-state">The key stays in this tab (sessionStorage) and is sent only in the Authorization header.</p>
</form>
</header>
<main>
<div id="error" class="error" role="alert" hidden></div>
<p id="status" class="status" role="status" aria-live="polite"></p>

<section id="list-view" aria-labelledby="list-title" hidden>
<h2 id="list-title" tabindex="-1">Sessions</h2>
<table class="sessions">
<caption>Newest first. Pick a session to replay it.</caption>
<thead><tr>
<th scope="col">Session</th><th scope="col">App</th><th scope="col">First seen</th><th scope="col">Last seen</th>
<th scope="col">Replay chunks</th><th scope="col">Logs</th><th scope="col">Spans</th><th scope="col">Network steps</th>
</tr></thead>
<tbody id="session-rows"></tbody>
</table>
<p id="no-sessions" hidden>No sessions yet. Sessions appear once an app using the SDK sends telemetry to this server.</p>
<button type="button" id="more-sessions" hidden>More sessions</button>
</section>

<section id="session-view" aria-labelledby="session-title" hidden>
<p><a href="#">← All sessions</a></p>
<h2 id="session-title" tabindex="-1">Session <code id="session-id"></code></h2>
<p id="session-summary"></p>
<p><button type="button" id="download-test">Download Playwright test</button></p>
<p id="gaps" class="warning" hidden></p>
<div class="replay-layout">
<div class="replay-main">
<div id="player" class="player"></div>
<p id="no-replay" class="notice" hidden></p>
</div>
<aside class="timeline" aria-label="Session timeline">
<p class="hint">Times are from the start of the replay; pick a row to jump there.</p>
<section aria-labelledby="errors-title"><h3 id="errors-title">Errors</h3><ol id="errors-list"></ol></section>
<section aria-labelledby="network-title"><h3 id="network-title">Network</h3><ol id="network-list"></ol></section>
<section aria-labelledby="logs-title"><h3 id="logs-title">Logs</h3><ol id="logs-list"></ol></section>
</aside>
</div>
</section>
</main>
</body>
</html>
`;
}
