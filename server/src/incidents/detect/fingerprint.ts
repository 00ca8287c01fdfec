import { createHash } from 'node:crypto';
import { normalizeMessage, redactMessage, splitTypePrefix } from './normalize-message';
import type { SymbolicatedFrame } from '../../sourcemaps/types';
import { topFrameOf, topInAppFrame, type TopFrame } from './top-frame';

/** What an error record says about itself, from its `exception.*` attributes or its log body. */
export interface RawError {
  /** `exception.type`, when set. */
  type: string | undefined;
  /** `exception.message`, or the log body. */
  message: string;
  /** `exception.stacktrace`, when set. */
  stacktrace: string | undefined;
}

/** The parts of an error that identify the bug behind it. */
export interface ErrorSignature {
  type: string;
  /** Normalised: the same for every occurrence of the bug. */
  message: string;
  /** This occurrence's message with only personal and secret data masked, for titles. */
  sampleMessage: string;
  frame: TopFrame | null;
}

/**
 * Error type (`exception.type`, else the `TypeError:` prefix of the message, else `Error`), normalised message and top
 * in-app frame of one error: from its symbolicated `frames` when given (top-frame.ts, topFrameOf), else as sent.
 */
export function errorSignature(raw: RawError, frames?: readonly SymbolicatedFrame[]): ErrorSignature {
  const prefixed = splitTypePrefix(raw.message);
  const type = raw.type || prefixed.type || 'Error';
  // The SDK's log body repeats the type (`TypeError: …`); whichever way the type came, it is not part of the message.
  const message = prefixed.type === type ? prefixed.message : raw.message;
  return {
    type,
    message: normalizeMessage(message),
    sampleMessage: redactMessage(message),
    frame: raw.stacktrace ? (frames ? topFrameOf(raw.stacktrace, frames) : topInAppFrame(raw.stacktrace)) : null,
  };
}

/** Hex characters of a group key: 64 bits, no collision among the groups of one project in practice. */
const KEY_LENGTH = 16;

/**
 * The grouping key of an error: its signature within one app and environment, hashed. Line numbers, content hashes
 * and (with a map) minified names are not part of it, so a redeploy keeps the key.
 */
export function fingerprint(appId: string, env: string, signature: ErrorSignature): string {
  const parts = [appId, env, signature.type, signature.message, signature.frame?.key ?? ''];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, KEY_LENGTH);
}
