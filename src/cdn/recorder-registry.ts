import type { BodyModule } from '../replay/load-bodies';
import type { recorderWith } from '../replay/recorder';

/**
 * What `svc-recorder.min.js` provides: the recorder, given what it shares with `svc.min.js` by the loader
 * (replay/shared-helpers.ts), and the recipe body module that lives in the same file.
 */
export interface RecorderFile {
  readonly recorderWith: typeof recorderWith;
  readonly bodies: BodyModule;
}

/**
 * Where `svc-recorder.min.js` hands the recorder to `svc.min.js`. A `Symbol.for` key on the global object is shared
 * by every copy of the SDK on the page yet adds no visible global; entries are keyed by SDK version, so two copies of
 * different versions, each loading its own recorder file, never take (or overwrite) each other's.
 */
const REGISTRY_KEY = Symbol.for('@svc/browser/recorders');

type Registry = Map<string, RecorderFile>;

function registry(): Registry {
  const holder = globalThis as typeof globalThis & { [REGISTRY_KEY]?: Registry };
  let found = holder[REGISTRY_KEY];
  if (found === undefined) {
    found = new Map();
    holder[REGISTRY_KEY] = found;
  }
  return found;
}

/** Called by `svc-recorder.min.js` when it runs, with the version it was built with. */
export function registerRecorder(version: string, file: RecorderFile): void {
  registry().set(version, file);
}

/** What the recorder file of `version` registered, if its script has run. */
export function registeredRecorder(version: string): RecorderFile | undefined {
  return registry().get(version);
}

/** Every version a recorder script registered, for the message when none matches. */
export function registeredVersions(): string[] {
  return [...registry().keys()];
}
