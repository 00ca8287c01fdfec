/**
 * Entry of `dist/cdn/svc-recorder.min.js`, the script-tag build's session recorder (rrweb). `svc.min.js` injects it
 * with a `<script>` tag once replay starts (cdn/load-recorder.ts). It registers `recorderWith` under the SDK version
 * it was built with; the loader only accepts its own version, and hands the recorder what it shares with `svc.min.js`
 * (replay/shared-helpers.ts), which this file then does not carry a copy of. The recipe body module rides along: recipes
 * are part of the replay, so a page that records them loads this file anyway, and `svc.min.js` stays smaller.
 */
import * as bodies from '../replay/bodies';
import { recorderWith } from '../replay/recorder';
import { SDK_VERSION } from '../version';
import { registerRecorder } from './recorder-registry';

registerRecorder(SDK_VERSION, { recorderWith, bodies });
