/**
 * The script-tag build's recorder loader. A `<script>` file has no chunk loader, so the bundler loader's
 * `import('./recorder')` would inline rrweb into `svc.min.js`; the CDN build (rollup.config.mjs, plugin
 * `cdn-recorder-loader`) resolves every import of replay/load-recorder.ts to this module instead, which loads
 * `svc-recorder.min.js` with a `<script>` tag the first time replay starts.
 *
 * Where from: next to the script that loaded `svc.min.js`, or the address in its `data-recorder-src` attribute.
 */
import type { loadRecorder as bundlerLoadRecorder } from '../replay/load-recorder';
import { sharedLoad, type LoadSlot } from '../replay/load-recorder-slot';
import type { loadBodies as bundlerLoadBodies } from '../replay/load-bodies';
import { SHARED_HELPERS } from '../replay/shared-helpers';
import type { StartRecording } from '../replay/types';
import { SDK_VERSION } from '../version';
import { registeredRecorder, registeredVersions, type RecorderFile } from './recorder-registry';
import { readRecorderSrc } from './script-config';

/** The recorder's file name in dist/cdn/, next to `svc.min.js`. */
export const RECORDER_FILE = 'svc-recorder.min.js';

/**
 * The `<script>` element running `svc.min.js`. `document.currentScript` is only set while a classic script is first
 * evaluated, so it is captured now, as this module is evaluated, not when replay starts.
 */
const ownScript: HTMLOrSVGScriptElement | null =
  (typeof document === 'undefined' ? null : document.currentScript) || null;

/** SVG `<script>` elements have `href`, not `src`, and no `crossOrigin`. */
function isHtmlScript(script: HTMLOrSVGScriptElement | null): script is HTMLScriptElement {
  return script !== null && typeof (script as Partial<HTMLScriptElement>).src === 'string';
}

/** The recorder's absolute address, or undefined when neither the attribute nor the script's own `src` tells it. */
function recorderUrl(): string | undefined {
  try {
    const override = readRecorderSrc(ownScript);
    // Like any URL attribute, a relative data-recorder-src is relative to the page.
    if (override !== undefined) return new URL(override, document.baseURI).href;
    if (isHtmlScript(ownScript) && ownScript.src !== '') return new URL(RECORDER_FILE, ownScript.src).href;
  } catch {
    // An unparsable address: reported below as unknown.
  }
  return undefined;
}

/** Why the loaded script did not provide this version's recorder. */
function notRegistered(url: string): Error {
  const others = registeredVersions().filter((version) => version !== SDK_VERSION);
  if (others.length > 0) {
    return new Error(
      `${url} is the session recorder of @svc/browser ${others.join(', ')}, but this SDK is ${SDK_VERSION}; ` +
        `serve the ${RECORDER_FILE} of the same release`,
    );
  }
  return new Error(`${url} registered no session recorder; is it the ${RECORDER_FILE} of @svc/browser ${SDK_VERSION}?`);
}

function injectRecorderScript(): Promise<RecorderFile> {
  // A page may include svc-recorder.min.js itself (e.g. to bundle both files up front).
  const ready = registeredRecorder(SDK_VERSION);
  if (ready !== undefined) return Promise.resolve(ready);
  const url = recorderUrl();
  if (url === undefined) {
    return Promise.reject(
      new Error(
        `the session recorder's address is unknown: give the svc.min.js script tag data-recorder-src="…/${RECORDER_FILE}"`,
      ),
    );
  }
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = url;
    script.async = true;
    // The same CORS mode and CSP nonce as svc.min.js's own tag, so a page that allowed one allows the other.
    if (isHtmlScript(ownScript) && ownScript.crossOrigin !== null) script.crossOrigin = ownScript.crossOrigin;
    if (ownScript && ownScript.nonce) script.nonce = ownScript.nonce;
    script.onload = () => {
      // Gone before recording starts, so the tag is not part of the first snapshot.
      script.remove();
      const file = registeredRecorder(SDK_VERSION);
      if (file !== undefined) resolve(file);
      else reject(notRegistered(url));
    };
    script.onerror = () => {
      script.remove();
      reject(
        new Error(
          `could not load the session recorder from ${url} (not found, or blocked by the page's Content-Security-Policy)`,
        ),
      );
    };
    (document.head || document.documentElement).appendChild(script);
  });
}

const slot: LoadSlot<RecorderFile> = {};

/** The recorder made from the registered file, made once: the same function on every load. */
let recorder: StartRecording | undefined;

/** Same contract as the bundler loader (the type says so): shared while pending, retried after a failure. */
export const loadRecorder: typeof bundlerLoadRecorder = () =>
  sharedLoad(slot, injectRecorderScript).then((file) => (recorder = recorder || file.recorderWith(SHARED_HELPERS)));

/** The recipe body module, from the same file (the CDN build resolves replay/load-bodies.ts's import here). */
export const loadBodies: typeof bundlerLoadBodies = () =>
  sharedLoad(slot, injectRecorderScript).then((file) => file.bodies);
