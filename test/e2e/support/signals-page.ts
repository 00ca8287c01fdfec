/**
 * The page of the signal tests: content for FCP and LCP, a button whose handler is slow enough to be an INP
 * candidate, and `app.js`, whose throwing function sits at a known line and column.
 */
export const SIGNALS_PAGE_TITLE = 'Signals page';

export const signalsPageHtml = (scripts: readonly string[]): string => `<!doctype html>
<html>
<head>
<meta charset="utf-8">
<title>${SIGNALS_PAGE_TITLE}</title>
${scripts.map((src) => `<script src="${src}"></script>`).join('\n')}
<script src="/app.js"></script>
</head>
<body>
<h1 id="headline">Signals</h1>
<p class="intro lead">A paragraph of text so that the page has a first and a largest contentful paint.</p>
<div id="shifting"><p>This block moves down when the banner appears above it.</p></div>
<button id="slow" class="primary" onclick="busy(120)">Slow button</button>
</body>
</html>`;

/** Where `throwUncaught` throws in {@link APP_JS}: line and column (1-based) of `new TypeError`, where V8 places it. */
export const APP_THROW_LINE = 4;
export const APP_THROW_COLUMN = 11;

export const APP_JS = `// Test application code.
window.throwUncaught = function (message) {
  setTimeout(function () {
    throw new TypeError(message);
  }, 0);
};
window.busy = function (ms) {
  var end = performance.now() + ms;
  while (performance.now() < end) {}
};
window.shiftLayout = function () {
  var banner = document.createElement('div');
  banner.style.height = '200px';
  banner.textContent = 'Late banner';
  document.body.insertBefore(banner, document.getElementById('shifting'));
};
`;
