// @ts-check
/* global document, window, location, history, sessionStorage, fetch, URLSearchParams, setTimeout, Element, HTMLElement, HTMLButtonElement, HTMLFormElement, HTMLInputElement */
/**
 * The replay viewer page (GET /viewer/ on the reference server): pick a session, play its rrweb replay with
 * rrweb-player, and list its errors, network steps and logs beside the timeline, each row seeking the player.
 *
 * Plain modern JavaScript, served as written (type-checked with server/src/viewer/tsconfig.page.json). Everything shown
 * comes from stored telemetry, which the recorded app's users control: it is only ever written with textContent and
 * attribute setters, never parsed as HTML. The control key lives in sessionStorage and is sent only in the
 * Authorization header of same-origin API requests.
 */

/** @typedef {{ spans: number, logs: number, metric_points: number, replay_chunks: number, recipes: number }} Counts */
/** @typedef {{ session_id: string, app: string, first_seen: string, last_seen: string, counts: Counts }} SessionRow */
/** @typedef {{ replay_id: string, start_time: string, end_time: string, chunk_count: number, event_count: number, first_url: string | null }} ReplayInfo */
/** @typedef {SessionRow & { replays: ReplayInfo[] }} SessionDetail */
/** @typedef {{ type: number, timestamp: number, data?: unknown }} ReplayEvent */
/** @typedef {{ replay_id: string, missing_seq: number[], missing_count?: number }} ReplayGap */
/** @typedef {{ time: string, severity_number: number | null, severity_text: string | null, body: unknown, attributes: Record<string, unknown> }} LogRow */
/** @typedef {{ ts: number, method: string, url: string, status: number, durationMs: number, error?: string | null }} NetworkStep */
/** @typedef {{ at: number, label: string, detail?: string }} TimelineItem */
/**
 * The part of rrweb-player's component the page uses.
 * @typedef {{
 *   goto(timeOffset: number, play?: boolean): void,
 *   pause(): void,
 *   getMetaData(): { startTime: number, endTime: number, totalTime: number },
 *   triggerResize(): void,
 *   $set(props: Record<string, unknown>): void,
 *   $destroy(): void,
 * }} Player
 */
/** @typedef {{ Player: new (options: { target: HTMLElement, props: Record<string, unknown> }) => Player }} PlayerModule */

const KEY_STORAGE = 'svc.viewer.controlKey';
/** Rows fetched per request, at the API's maximum for each list so that a session needs few round trips. */
const PAGE_SIZE = { sessions: 50, replay: 200, logs: 1000, recipes: 1000 };
/** A list stops growing here: the viewer stays responsive on a session that logged without end. */
const MAX_ROWS = 5000;
/** Missing chunk numbers named per replay in the gap warning; the rest are counted. */
const MAX_LISTED_SEQ = 10;
/** Timeline marker colours of the SDK's own custom replay events (rrweb-player `tags`). */
const EVENT_COLOURS = { network: '#8a8f98', network_error: '#c62828', navigation: '#1565c0', 'svc.recording_stopped': '#6d4c41' };
/** rrweb event types (@rrweb/types EventType). */
const FULL_SNAPSHOT_EVENT = 2;
const CUSTOM_EVENT = 5;
/** OTLP severity numbers 17-24 are ERROR and FATAL. */
const ERROR_SEVERITY = 17;

/** An API request that failed, with a message fit to show; `badKey` when the key itself was refused. */
class ApiFailure extends Error {
  /** @param {string} message @param {number} status */
  constructor(message, status) {
    super(message);
    this.status = status;
    this.badKey = status === 401 || status === 403;
  }
}

// ---------------------------------------------------------------------------------------------------- the DOM

/**
 * @template {HTMLElement} T
 * @param {string} id
 * @param {new () => T} type
 * @returns {T}
 */
function byId(id, type) {
  const node = document.getElementById(id);
  if (!(node instanceof type)) throw new Error(`the viewer page lacks #${id}`);
  return node;
}

const ui = {
  keyForm: byId('key-form', HTMLFormElement),
  keyInput: byId('key-input', HTMLInputElement),
  forgetKey: byId('forget-key', HTMLButtonElement),
  error: byId('error', HTMLElement),
  status: byId('status', HTMLElement),
  listView: byId('list-view', HTMLElement),
  listTitle: byId('list-title', HTMLElement),
  sessionRows: byId('session-rows', HTMLElement),
  noSessions: byId('no-sessions', HTMLElement),
  moreSessions: byId('more-sessions', HTMLButtonElement),
  sessionView: byId('session-view', HTMLElement),
  sessionTitle: byId('session-title', HTMLElement),
  sessionId: byId('session-id', HTMLElement),
  sessionSummary: byId('session-summary', HTMLElement),
  downloadTest: byId('download-test', HTMLButtonElement),
  gaps: byId('gaps', HTMLElement),
  player: byId('player', HTMLElement),
  noReplay: byId('no-replay', HTMLElement),
  errorsList: byId('errors-list', HTMLElement),
  networkList: byId('network-list', HTMLElement),
  logsList: byId('logs-list', HTMLElement),
};

/**
 * Creates an element. Strings among the children become text nodes: data is never parsed as HTML.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, string | undefined>} attributes
 * @param {Array<Node | string>} children
 * @returns {HTMLElementTagNameMap[K]}
 */
function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) if (value !== undefined) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

/** @param {string} text */
function setStatus(text) {
  ui.status.textContent = text;
}

/** @param {unknown} error */
function showError(error) {
  ui.error.textContent = error instanceof Error ? error.message : String(error);
  ui.error.hidden = false;
  if (error instanceof ApiFailure && error.badKey) ui.keyInput.focus();
}

function clearError() {
  ui.error.hidden = true;
  ui.error.textContent = '';
}

/** @param {string} iso */
const localTime = (iso) => new Date(iso).toLocaleString();

/**
 * `+1:05.300`: minutes, seconds and milliseconds from the start of the replay (negative before it).
 * @param {number} ms
 */
function formatOffset(ms) {
  const sign = ms < 0 ? '−' : '+';
  const abs = Math.round(Math.abs(ms));
  const minutes = Math.floor(abs / 60_000);
  const seconds = ((abs % 60_000) / 1000).toFixed(3).padStart(6, '0');
  return `${sign}${minutes}:${seconds}`;
}

// ---------------------------------------------------------------------------------------------------- the key

const storedKey = () => sessionStorage.getItem(KEY_STORAGE);

/** @param {string | null} key */
function setKey(key) {
  if (key) sessionStorage.setItem(KEY_STORAGE, key);
  else sessionStorage.removeItem(KEY_STORAGE);
  ui.forgetKey.hidden = !key;
  ui.keyInput.required = !key;
  ui.keyInput.placeholder = key ? 'key set for this tab; type another to replace it' : 'svc_control_…';
}

/** The fragment's parameters: `#key=<control key>&session=<session id>`. */
const fragment = () => new URLSearchParams(location.hash.slice(1));

/** Moves a key given in the fragment into sessionStorage and out of the address bar and history. */
function takeKeyFromFragment() {
  const params = fragment();
  const key = params.get('key');
  if (key === null) return;
  if (key.trim()) setKey(key.trim());
  params.delete('key');
  const rest = params.toString();
  history.replaceState(null, '', rest ? `#${rest}` : `${location.pathname}${location.search}`);
}

// ---------------------------------------------------------------------------------------------------- the API

/** @param {Response} res */
async function serverMessage(res) {
  try {
    const body = await res.json();
    if (body && body.error && typeof body.error.message === 'string') return body.error.message;
  } catch {
    // Not the server's JSON error shape (a proxy's page, say): the status says enough.
  }
  return res.statusText || 'no reason given';
}

/**
 * GET a control-plane path with the key. Resolves with the response when it is 2xx; otherwise rejects with an
 * ApiFailure whose message says what to do.
 * @param {string} path
 */
async function api(path) {
  const key = storedKey();
  if (!key) throw new ApiFailure('Enter a control key first (svc-server start prints one).', 401);
  let res;
  try {
    res = await fetch(path, { headers: { authorization: `Bearer ${key}` }, cache: 'no-store' });
  } catch (error) {
    throw new ApiFailure(`Could not reach the server at ${location.origin} (${error instanceof Error ? error.message : error}). Is it running? Reload to retry.`, 0);
  }
  if (res.ok) return res;
  const message = await serverMessage(res);
  if (res.status === 401) {
    throw new ApiFailure(`The server did not accept this control key (401: ${message}). Enter the control key printed by svc-server start, or create one with: svc-server keys create --scope control`, 401);
  }
  if (res.status === 403) {
    throw new ApiFailure(`This key may not read the control plane (403: ${message}). It may be revoked, expired, or an ingest key; use a control key.`, 403);
  }
  throw new ApiFailure(`${path.split('?')[0]} answered HTTP ${res.status}: ${message}`, res.status);
}

/** @param {string} path */
const apiJson = async (path) => (await api(path)).json();

/**
 * Every page of a cursor-paged answer, following `next_cursor`.
 * @param {string} path with its query, without cursor
 * @returns {AsyncGenerator<any>}
 */
async function* pages(path) {
  let cursor = null;
  do {
    const page = await apiJson(cursor === null ? path : `${path}&cursor=${encodeURIComponent(cursor)}`);
    yield page;
    cursor = typeof page.next_cursor === 'string' ? page.next_cursor : null;
  } while (cursor !== null);
}

/**
 * Rows of a `{data, next_cursor}` list, all pages up to MAX_ROWS.
 * @param {string} path
 * @returns {Promise<{ rows: any[], capped: boolean }>}
 */
async function listRows(path) {
  const rows = [];
  for await (const page of pages(path)) {
    for (const row of page.data) rows.push(row);
    if (rows.length >= MAX_ROWS) return { rows: rows.slice(0, MAX_ROWS), capped: true };
  }
  return { rows, capped: false };
}

/** @param {string} sessionId */
const sessionPath = (sessionId) => `/control-plane/sessions/${encodeURIComponent(sessionId)}`;

/**
 * The session's replay events in playback order, and the chunks that never arrived.
 * @param {string} sessionId
 * @param {(count: number) => void} progress
 */
async function loadReplay(sessionId, progress) {
  /** @type {ReplayEvent[]} */
  const events = [];
  /** @type {Map<string, ReplayGap>} the latest page's word on each replay */
  const gaps = new Map();
  for await (const page of pages(`${sessionPath(sessionId)}/replay?limit=${PAGE_SIZE.replay}`)) {
    for (const event of page.events) events.push(event);
    for (const gap of page.gaps ?? []) gaps.set(gap.replay_id, gap);
    progress(events.length);
  }
  return { events, gaps: [...gaps.values()] };
}

/**
 * The session's recipe steps, oldest first. Falls back to the plain recipes list on a server without the
 * per-session endpoint.
 * @param {string} sessionId
 * @returns {Promise<{ rows: NetworkStep[], capped: boolean }>}
 */
async function loadRecipes(sessionId) {
  try {
    return await listRows(`${sessionPath(sessionId)}/recipes?limit=${PAGE_SIZE.recipes}`);
  } catch (error) {
    if (!(error instanceof ApiFailure) || error.status !== 404) throw error;
    const newestFirst = await listRows(`/control-plane/recipes?session_id=${encodeURIComponent(sessionId)}&limit=${PAGE_SIZE.recipes}`);
    return { rows: newestFirst.rows.reverse(), capped: newestFirst.capped };
  }
}

// ---------------------------------------------------------------------------------------------------- the session list

/** @type {string | null} */
let sessionsCursor = null;

/** @param {SessionRow} s */
function sessionRow(s) {
  const link = el('a', { href: `#session=${encodeURIComponent(s.session_id)}` }, el('code', {}, s.session_id));
  const count = (/** @type {number} */ n) => el('td', { class: 'number' }, String(n));
  return el(
    'tr',
    {},
    el('th', { scope: 'row' }, link),
    el('td', {}, s.app),
    el('td', {}, localTime(s.first_seen)),
    el('td', {}, localTime(s.last_seen)),
    count(s.counts.replay_chunks),
    count(s.counts.logs),
    count(s.counts.spans),
    count(s.counts.recipes),
  );
}

/** @param {number} generation @param {boolean} more */
async function loadSessions(generation, more) {
  const cursor = more && sessionsCursor ? `&cursor=${encodeURIComponent(sessionsCursor)}` : '';
  setStatus('Loading sessions…');
  /** @type {{ data: SessionRow[], next_cursor: string | null }} */
  const page = await apiJson(`/control-plane/sessions?limit=${PAGE_SIZE.sessions}${cursor}`);
  if (generation !== navigation) return;
  if (!more) ui.sessionRows.replaceChildren();
  ui.sessionRows.append(...page.data.map(sessionRow));
  sessionsCursor = page.next_cursor;
  ui.moreSessions.hidden = sessionsCursor === null;
  const shown = ui.sessionRows.childElementCount;
  ui.noSessions.hidden = shown > 0;
  setStatus(`${shown} session${shown === 1 ? '' : 's'} shown${sessionsCursor ? '; more are available' : ''}.`);
}

// ---------------------------------------------------------------------------------------------------- one session

/** @type {Player | null} */
let player = null;
/**
 * The earliest offset that shows the recorded page: just after the first full snapshot, since a paused replayer draws
 * only the events strictly before its time. Seeking earlier would show no page, or leave the frame a later seek drew;
 * rows from before it (logs written while the recorder was loading) seek here.
 */
let firstFrameMs = 0;

function closePlayer() {
  player?.$destroy();
  player = null;
  ui.player.replaceChildren();
}

/** @returns {PlayerModule} */
function playerModule() {
  /** @type {PlayerModule | undefined} */
  const module = Reflect.get(window, 'rrwebPlayer');
  if (!module) throw new Error('rrweb-player did not load; reload the page.');
  return module;
}

/** @param {ReplayEvent[]} events */
function createPlayer(events) {
  return new (playerModule().Player)({
    target: ui.player,
    // No UNSAFE_replayCanvas: the replay iframe stays sandboxed without allow-scripts.
    props: { events, ...playerSize(), autoPlay: false, tags: EVENT_COLOURS, mouseTail: false },
  });
}

/** The replay frame's size: the column's width, 16:9, no taller than most of the window. */
function playerSize() {
  const width = Math.max(320, ui.player.parentElement?.clientWidth ?? 0);
  return { width, height: Math.round(Math.min((width * 9) / 16, window.innerHeight * 0.7)) };
}

/** Fits the player to the column again once a resize of the window has settled for a frame. */
let resizePending = false;
function fitPlayer() {
  if (resizePending) return;
  resizePending = true;
  window.requestAnimationFrame(() => {
    resizePending = false;
    player?.$set(playerSize());
    player?.triggerResize();
  });
}

/** @param {unknown} body */
const bodyText = (body) => (typeof body === 'string' ? body : JSON.stringify(body));

/** @param {LogRow} log */
const isError = (log) =>
  (log.severity_number ?? 0) >= ERROR_SEVERITY ||
  /^(ERROR|FATAL)/i.test(log.severity_text ?? '') ||
  'exception.type' in log.attributes ||
  'exception.message' in log.attributes;

/** @param {LogRow} log @returns {TimelineItem} */
function logItem(log) {
  const stack = log.attributes['exception.stacktrace'];
  return {
    at: Date.parse(log.time),
    label: `${log.severity_text ?? 'LOG'} ${bodyText(log.body)}`,
    detail: typeof stack === 'string' ? stack : undefined,
  };
}

/** @param {string} url */
function shortUrl(url) {
  try {
    const parsed = new URL(url);
    return parsed.origin === location.origin ? `${parsed.pathname}${parsed.search}` : `${parsed.host}${parsed.pathname}${parsed.search}`;
  } catch {
    return url;
  }
}

/** @param {NetworkStep} step @returns {TimelineItem} */
const networkItem = (step) => ({
  at: step.ts,
  label: `${step.method} ${shortUrl(step.url)} → ${step.status || 'failed'} (${Math.round(step.durationMs)} ms)${step.error ? ` ${step.error}` : ''}`,
  detail: step.url,
});

/**
 * Network steps told by the replay itself (its `network` and `network_error` events), for sessions recorded without
 * request recipes.
 * @param {ReplayEvent[]} events
 * @returns {NetworkStep[]}
 */
function networkEventsOf(events) {
  /** @type {NetworkStep[]} */
  const steps = [];
  for (const event of events) {
    if (event.type !== CUSTOM_EVENT || typeof event.data !== 'object' || event.data === null) continue;
    const { tag, payload } = /** @type {{ tag?: unknown, payload?: Partial<NetworkStep> }} */ (event.data);
    if ((tag !== 'network' && tag !== 'network_error') || !payload) continue;
    steps.push({
      ts: event.timestamp,
      method: String(payload.method ?? 'GET'),
      url: String(payload.url ?? ''),
      status: Number(payload.status ?? 0),
      durationMs: Number(payload.durationMs ?? 0),
      error: payload.error ?? null,
    });
  }
  return steps;
}

/**
 * Fills one timeline list. With a player each row is a button that seeks it to the row's moment.
 * @param {HTMLElement} list
 * @param {TimelineItem[]} items
 * @param {number} startMs
 * @param {boolean} capped
 */
function renderTimeline(list, items, startMs, capped) {
  const sorted = [...items].sort((a, b) => a.at - b.at);
  const rows = sorted.map((item) => {
    const offset = item.at - startMs;
    const content = [el('span', { class: 'offset' }, formatOffset(offset)), ' ', el('span', { class: 'label' }, item.label)];
    if (!player) return el('li', { title: item.detail }, ...content);
    const button = el('button', { type: 'button', class: 'row', 'data-offset-ms': String(Math.round(offset)), title: item.detail }, ...content);
    return el('li', {}, button);
  });
  if (rows.length === 0) rows.push(el('li', { class: 'empty' }, 'None'));
  if (capped) rows.push(el('li', { class: 'empty' }, `Only the first ${MAX_ROWS} are listed.`));
  list.replaceChildren(...rows);
  const heading = list.parentElement?.querySelector('h3');
  if (heading) heading.dataset.count = String(sorted.length);
}

/** @param {HTMLButtonElement} button */
function seekTo(button) {
  if (!player) return;
  const { totalTime } = player.getMetaData();
  const offset = Math.min(Math.max(Number(button.dataset.offsetMs), firstFrameMs), totalTime);
  player.goto(offset, false);
  for (const current of document.querySelectorAll('.timeline [aria-current]')) current.removeAttribute('aria-current');
  button.setAttribute('aria-current', 'true');
  setStatus(`Replay at ${formatOffset(offset)}.`);
}

/** @param {ReplayGap[]} gaps */
function showGaps(gaps) {
  const missing = gaps.filter((g) => g.missing_seq.length > 0);
  /** @param {ReplayGap} g */
  const describe = (g) => {
    const count = g.missing_count ?? g.missing_seq.length;
    const listed = g.missing_seq.slice(0, MAX_LISTED_SEQ).join(', ');
    return `replay ${g.replay_id}: chunk${count === 1 ? '' : 's'} ${listed}${count > MAX_LISTED_SEQ ? ` and ${count - MAX_LISTED_SEQ} more` : ''}`;
  };
  ui.gaps.hidden = missing.length === 0;
  ui.gaps.textContent =
    missing.length === 0 ? '' : `Part of this replay never reached the server (${missing.map(describe).join('; ')}). Playback jumps over the missing moments.`;
}

/** @param {SessionDetail} detail @param {number} eventCount */
function showSummary(detail, eventCount) {
  const replays = detail.replays.length;
  ui.sessionSummary.textContent =
    `App ${detail.app} · ${localTime(detail.first_seen)} to ${localTime(detail.last_seen)} · ` +
    `${replays} recording${replays === 1 ? '' : 's'}, ${eventCount} replay events, ${detail.counts.logs} logs, ` +
    `${detail.counts.spans} spans, ${detail.counts.recipes} network steps`;
}

/** @param {string} sessionId @param {number} generation */
async function openSession(sessionId, generation) {
  const current = () => generation === navigation;
  ui.sessionId.textContent = sessionId;
  ui.sessionSummary.textContent = '';
  ui.gaps.hidden = true;
  ui.noReplay.hidden = true;
  for (const list of [ui.errorsList, ui.networkList, ui.logsList]) list.replaceChildren();
  ui.sessionView.setAttribute('aria-busy', 'true');
  setStatus('Loading the session…');

  /** @type {SessionDetail} */
  let detail;
  try {
    detail = await apiJson(sessionPath(sessionId));
  } catch (error) {
    if (error instanceof ApiFailure && error.status === 404) {
      throw new Error(`No session ${sessionId} in this key's project: it may have expired, or belong to another project.`);
    }
    throw error;
  }
  const [replay, logs, recipes] = await Promise.all([
    loadReplay(sessionId, (count) => current() && setStatus(`Loading the replay: ${count} events…`)),
    listRows(`/control-plane/logs?session_id=${encodeURIComponent(sessionId)}&limit=${PAGE_SIZE.logs}`),
    loadRecipes(sessionId),
  ]);
  if (!current()) return;

  showSummary(detail, replay.events.length);
  showGaps(replay.gaps);
  let startMs = Date.parse(detail.first_seen);
  if (replay.events.length >= 2) {
    try {
      player = createPlayer(replay.events);
      startMs = player.getMetaData().startTime;
      const firstFrame = replay.events.find((event) => event.type === FULL_SNAPSHOT_EVENT);
      firstFrameMs = firstFrame ? firstFrame.timestamp - startMs + 1 : 0;
    } catch (error) {
      closePlayer();
      ui.noReplay.textContent = `The replay could not be played: ${error instanceof Error ? error.message : error}.`;
      ui.noReplay.hidden = false;
    }
  } else {
    ui.noReplay.textContent =
      replay.events.length === 0
        ? 'This session has no replay: recording was off, or its chunks have not arrived or have expired. Its errors, network steps and logs are listed with times from the start of the session.'
        : 'This session has too little replay to play (one event). Its errors, network steps and logs are listed with times from the start of the session.';
    ui.noReplay.hidden = false;
  }

  /** @type {LogRow[]} */
  const logRows = logs.rows;
  renderTimeline(ui.errorsList, logRows.filter(isError).map(logItem), startMs, logs.capped);
  renderTimeline(ui.logsList, logRows.map(logItem), startMs, logs.capped);
  const network = recipes.rows.length > 0 ? recipes.rows : networkEventsOf(replay.events);
  renderTimeline(ui.networkList, network.map(networkItem), startMs, recipes.capped);
  ui.sessionView.removeAttribute('aria-busy');
  setStatus(`Session loaded: ${replay.events.length} replay events, ${logRows.length} logs, ${network.length} network steps.`);
}

/** Saves the session as a Playwright spec: fetched with the key, so a plain link would not do. */
async function downloadTest() {
  const sessionId = ui.sessionId.textContent ?? '';
  setStatus('Exporting the Playwright test…');
  const blob = await (await api(`${sessionPath(sessionId)}/playwright`)).blob();
  const url = URL.createObjectURL(blob);
  const link = el('a', { href: url, download: `session-${sessionId.replace(/[^\w.-]/g, '_')}.spec.ts`, hidden: '' });
  document.body.append(link);
  link.click();
  link.remove();
  // The download has started from the URL by now; keep it a little for slow browsers anyway.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  setStatus('Playwright test downloaded.');
}

// ---------------------------------------------------------------------------------------------------- navigation

/** Bumped at each navigation, so answers to an earlier one are dropped. */
let navigation = 0;

/**
 * Shows what the fragment asks for: one session (`#session=`) or the session list.
 * @param {boolean} moveFocus to the view's heading, after a link was followed
 */
async function route(moveFocus = false) {
  const generation = ++navigation;
  closePlayer();
  clearError();
  const sessionId = fragment().get('session');
  ui.listView.hidden = sessionId !== null;
  ui.sessionView.hidden = sessionId === null;
  if (!storedKey()) {
    setStatus('');
    showError(new ApiFailure('Enter the control key (printed by svc-server start) to read sessions.', 401));
    return;
  }
  try {
    if (moveFocus) (sessionId === null ? ui.listTitle : ui.sessionTitle).focus();
    if (sessionId === null) await loadSessions(generation, false);
    else await openSession(sessionId, generation);
  } catch (error) {
    if (generation !== navigation) return;
    ui.sessionView.removeAttribute('aria-busy');
    setStatus('');
    showError(error);
  }
}

ui.keyForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const key = ui.keyInput.value.trim();
  if (!key) return;
  setKey(key);
  ui.keyInput.value = '';
  void route();
});

ui.forgetKey.addEventListener('click', () => {
  setKey(null);
  void route();
});

ui.moreSessions.addEventListener('click', () => {
  loadSessions(navigation, true).catch(showError);
});

ui.downloadTest.addEventListener('click', () => {
  downloadTest().catch((error) => {
    setStatus('');
    showError(error);
  });
});

document.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('.timeline button.row') : null;
  if (button instanceof HTMLButtonElement) seekTo(button);
});

window.addEventListener('resize', fitPlayer);

window.addEventListener('hashchange', () => {
  takeKeyFromFragment();
  void route(true);
});

takeKeyFromFragment();
setKey(storedKey());
void route();
