import { bodyPlaceholder, REPLAY_LIMITS } from '../../wire/replay';
import { sanitizePageUrl } from './page-url';
import { looksSensitive, MASK, REDACTED } from './sensitive';

/**
 * What the lazily loaded modules (the recorder, the recipe body module) use of modules the initial chunk has as well,
 * handed to them instead of imported: a module imported by both would be a chunk of its own to bundlers that split at
 * dynamic imports (esbuild), with its own compression overhead. The recorder gets it from its loader
 * (`recorderWith`, the script tag's loader too, so `svc-recorder.min.js` carries no copy); the body functions with
 * each call, from the initial chunk's body sources (body-source.ts) and recipe steps (network-record.ts), which
 * costs fewer bytes than a wrapper per function bound at load. The lazy modules import only its type. Internal names
 * (`_`): the build shortens them (build/internal-names.mjs).
 */
export const SHARED_HELPERS = {
  sanitizePageUrl_: sanitizePageUrl,
  looksSensitive_: looksSensitive,
  mask_: MASK,
  redacted_: REDACTED,
  bodyPlaceholder_: bodyPlaceholder,
  replayLimits_: REPLAY_LIMITS,
};

export type SharedHelpers = typeof SHARED_HELPERS;
