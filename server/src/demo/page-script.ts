/**
 * The demo page's inline script, run in the browser: one click handler per button, each exercising one signal the
 * SDK captures, and a status line saying what happened. Plain ES2020 so that it runs as written in any current
 * browser; it reads the SDK only through the `Svc` global, so the page still works (and says so) without it.
 */
export const DEMO_PAGE_SCRIPT = String.raw`
(() => {
  const result = document.getElementById('result');
  const sdk = () => (window.Svc && typeof Svc.getSDK === 'function' ? Svc.getSDK() : undefined);
  let clicks = 0;
  let step = 0;

  function refreshSession() {
    const id = sdk()?.sessionId;
    document.getElementById('session-id').textContent = id || 'none: the SDK is not running';
    if (id) document.getElementById('console-session').href = '/session/' + encodeURIComponent(id);
    for (const link of document.querySelectorAll('a[data-query]')) {
      const url = new URL(link.dataset.query);
      if (id) url.searchParams.set('session_id', id);
      link.href = url.href;
      link.textContent = url.href;
    }
    const first = document.querySelector('a[data-query]');
    if (first) document.getElementById('curl').textContent = 'curl -H "Authorization: Bearer <control key>" "' + first.href + '"';
  }

  function show(text, detail) {
    result.textContent = detail === undefined ? text : text + '\n' + JSON.stringify(detail, null, 2);
    refreshSession();
  }

  /** What the echo endpoint saw: the propagation headers are the interesting part. */
  const received = (body) => ({
    traceparent: body.headers.traceparent || '(none)',
    'x-svc-session-id': body.headers['x-svc-session-id'] || '(none)',
  });

  async function fetchEcho(url) {
    const res = await fetch(url);
    show('fetch ' + url + ' answered HTTP ' + res.status + '; the echo endpoint received:', received(await res.json()));
  }

  const actions = {
    'fetch-ok': () => fetchEcho('/demo/api/echo'),
    'fetch-500': () => fetchEcho('/demo/api/echo?status=500'),
    'fetch-slow': () => fetchEcho('/demo/api/echo?delay=1500'),
    async 'fetch-fail'(button) {
      const url = location.protocol + '//' + location.hostname + ':' + button.dataset.port + '/';
      try {
        await fetch(url);
        show('fetch ' + url + ' unexpectedly answered: something listens on that port now');
      } catch (error) {
        show('fetch ' + url + ' failed as intended: ' + error);
      }
    },
    xhr() {
      const xhr = new XMLHttpRequest();
      xhr.open('GET', '/demo/api/echo?via=xhr');
      xhr.responseType = 'json';
      xhr.onload = () => show('XMLHttpRequest answered HTTP ' + xhr.status + '; the echo endpoint received:', received(xhr.response));
      xhr.onerror = () => show('XMLHttpRequest failed');
      xhr.send();
    },
    'console-info': () => (console.info('demo: console.info from the demo page'), show('called console.info')),
    'console-warn': () => (console.warn('demo: console.warn from the demo page'), show('called console.warn')),
    'console-error': () => (console.error('demo: console.error from the demo page'), show('called console.error')),
    throw() {
      show('threw an uncaught Error (see the browser console)');
      throw new Error('demo: uncaught error from the demo page');
    },
    reject() {
      Promise.reject(new Error('demo: unhandled rejection from the demo page'));
      show('rejected a promise nobody handles');
    },
    log() {
      sdk()?.log('info', 'demo: custom log from the demo page', { attrs: { 'demo.button': 'log' } });
      show("called Svc.getSDK().log('info', ...)");
    },
    metric() {
      clicks += 1;
      sdk()?.metric('demo.button_clicks', clicks, '{click}');
      show("called Svc.getSDK().metric('demo.button_clicks', " + clicks + ", '{click}')");
    },
    push() {
      step += 1;
      const url = new URL(location.href);
      url.searchParams.set('step', String(step));
      history.pushState({ step }, '', url);
      show('history.pushState to ' + url.href);
    },
    hash() {
      step += 1;
      location.hash = 'step-' + step;
      show('changed the hash to #step-' + step);
    },
    shift() {
      // Shifts within 500 ms of an input do not count toward CLS, so this one waits.
      setTimeout(() => {
        const banner = document.getElementById('shift-banner');
        banner.hidden = !banner.hidden;
        show('moved the page content (a layout shift, reported in CLS)');
      }, 800);
      show('the page content will move in a moment');
    },
  };

  document.addEventListener('click', (event) => {
    const button = event.target instanceof Element ? event.target.closest('button[data-action]') : null;
    if (!button) return;
    const outcome = actions[button.dataset.action](button);
    if (outcome instanceof Promise) outcome.catch((error) => show('failed: ' + error));
  });
  addEventListener('popstate', refreshSession);
  refreshSession();
})();
`;
