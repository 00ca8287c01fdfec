import type { User } from '../config/types';
import { toAttributes } from '../signals/attributes';
import type { DebugLog } from '../core/core';
import type { Attributes } from '../core/types';

/** The user and session attributes the app set, added to every record. */
export interface Identity {
  setUser(user: User): void;
  clearUser(): void;
  setAttributes(attributes: Record<string, unknown>): void;
  /** `user.*` and `session.attributes.*` to add to each record; empty until the app sets something. */
  readonly attributes: Readonly<Attributes>;
}

/** What {@link Identity.attributes} is until the app sets something: records then go out without a copy. */
export const NO_IDENTITY: Readonly<Attributes> = Object.freeze({});

/** Prefix of the custom attributes, so the server can index them on the session without guessing which keys they are. */
const SESSION_ATTRIBUTE = 'session.attributes.';

const isText = (value: unknown): value is string | number =>
  (typeof value === 'string' && value !== '') || typeof value === 'number';

/**
 * User identity and session attributes (`setUser`, `clearUser`, `setAttributes`). Only `user.id` is sent unless
 * `sendUserPii`; the values live in memory only, so the app sets them again on each page load, as with the peers.
 */
export function createIdentity(sendUserPii: boolean, debug: DebugLog): Identity {
  let user: Attributes = {};
  let custom: Attributes = {};
  let current: Readonly<Attributes> = NO_IDENTITY;
  const update = (): void => {
    const merged = { ...custom, ...user };
    current = Object.keys(merged).length > 0 ? merged : NO_IDENTITY;
  };
  return {
    get attributes() {
      return current;
    },
    setUser(given) {
      const { id, email, username } = (typeof given === 'object' && given !== null ? given : {}) as Partial<
        Record<keyof User, unknown>
      >;
      if (!isText(id)) {
        debug.warn('setUser needs an object with a non-empty string id, e.g. setUser({ id: "42" }); ignored.');
        return;
      }
      user = { 'user.id': String(id) };
      if (sendUserPii && isText(email)) user['user.email'] = String(email);
      if (sendUserPii && isText(username)) user['user.name'] = String(username);
      update();
    },
    clearUser() {
      user = {};
      update();
    },
    setAttributes(given) {
      if (typeof given !== 'object' || given === null || Array.isArray(given)) {
        debug.warn('setAttributes needs an object of key-value pairs; ignored.');
        return;
      }
      // A null or undefined value removes the key, so an attribute set earlier can be taken back.
      const kept: Record<string, unknown> = {};
      for (const key of Object.keys(given)) {
        const value = given[key];
        if (value === null || value === undefined) delete custom[SESSION_ATTRIBUTE + key];
        else kept[SESSION_ATTRIBUTE + key] = value;
      }
      custom = { ...custom, ...toAttributes(kept).attributes };
      update();
    },
  };
}
