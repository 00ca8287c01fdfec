import { describe, expect, it } from 'vitest';
import { createSessionTracker, SESSION_INACTIVITY_MS, SESSION_MAX_AGE_MS } from '../../src/session/session';
import type { KeyValueStore } from '../../src/session/storage';
import { ingestUrls } from '../../src/sdk/ingest-urls';
import { shouldPropagate } from '../../src/tracing/targets';
import { sanitizeUrl } from '../../src/tracing/url';

function memoryStore(): KeyValueStore & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return { data, get: (key) => data.get(key) ?? null, set: (key, value) => void data.set(key, value) };
}

function clock(start = 1_700_000_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('session tracker', () => {
  it('stores the id itself under the configured key and keeps it while the user is active', () => {
    const store = memoryStore();
    const time = clock();
    const session = createSessionTracker('svc_session_id', time.now, store);
    const id = session.id();
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(store.data.get('svc_session_id')).toBe(id);
    for (let i = 0; i < 10; i++) {
      time.advance(SESSION_INACTIVITY_MS - 1000);
      expect(session.id()).toBe(id);
    }
  });

  it('rotates after inactivity and tells listeners', () => {
    const store = memoryStore();
    const time = clock();
    const session = createSessionTracker('k', time.now, store);
    const first = session.id();
    const rotated: string[] = [];
    session.onRotate((id) => rotated.push(id));
    time.advance(SESSION_INACTIVITY_MS);
    const second = session.id();
    expect(second).not.toBe(first);
    expect(rotated).toEqual([second]);
    expect(store.data.get('k')).toBe(second);
  });

  it('rotates at the maximum age even when always active', () => {
    const time = clock();
    const session = createSessionTracker('k', time.now, memoryStore());
    const first = session.id();
    let current = first;
    for (let elapsed = 0; elapsed < SESSION_MAX_AGE_MS; elapsed += 60_000) {
      time.advance(60_000);
      current = session.id();
    }
    expect(current).not.toBe(first);
  });

  it('resumes the stored session on a reload, and another tab adopts it', () => {
    const store = memoryStore();
    const time = clock();
    const id = createSessionTracker('k', time.now, store).id();
    time.advance(60_000);
    expect(createSessionTracker('k', time.now, store).id()).toBe(id);
  });

  it('starts a new session when the stored one expired or is garbage', () => {
    const store = memoryStore();
    const time = clock();
    const id = createSessionTracker('k', time.now, store).id();
    time.advance(SESSION_INACTIVITY_MS + 1);
    expect(createSessionTracker('k', time.now, store).id()).not.toBe(id);
    store.data.set('k', '<script>');
    expect(createSessionTracker('k', time.now, store).id()).toMatch(/^[0-9a-f]{32}$/);
  });

  it('follows a rotation made by another tab', () => {
    const store = memoryStore();
    const time = clock();
    const tabA = createSessionTracker('k', time.now, store);
    const tabB = createSessionTracker('k', time.now, store);
    expect(tabA.id()).toBe(tabB.id());
    time.advance(SESSION_INACTIVITY_MS);
    const rotatedInB = tabB.id();
    const seenByA: string[] = [];
    tabA.onRotate((id) => seenByA.push(id));
    expect(tabA.id()).toBe(rotatedInB);
    expect(seenByA).toEqual([rotatedInB]);
  });
});

describe('ingest URLs', () => {
  it('resolves same-origin, path-prefix and absolute bases', () => {
    expect(ingestUrls('', 'https://shop.example').url('/otlp/v1/logs')).toBe('https://shop.example/otlp/v1/logs');
    expect(ingestUrls('/svc', 'https://shop.example').url('/otlp/v1/logs')).toBe(
      'https://shop.example/svc/otlp/v1/logs',
    );
    const absolute = ingestUrls('https://ingest.example', 'https://shop.example');
    expect(absolute.url('/ingest/replay/chunk')).toBe('https://ingest.example/ingest/replay/chunk');
    expect(absolute.isIngestUrl('https://ingest.example/otlp/v1/traces')).toBe(true);
    expect(absolute.isIngestUrl('https://ingest.example/api/orders')).toBe(false);
    expect(absolute.isIngestUrl('https://shop.example/otlp/v1/traces')).toBe(false);
  });
});

describe('propagation targets', () => {
  const page = 'https://shop.example';
  it('allows the page origin and the configured origins only', () => {
    const targets = ['https://api.example'];
    expect(shouldPropagate(new URL('https://shop.example/api'), page, targets)).toBe(true);
    expect(shouldPropagate(new URL('https://api.example/v1/orders'), page, targets)).toBe(true);
    expect(shouldPropagate(new URL('https://api.example.evil.test/'), page, targets)).toBe(false);
    expect(shouldPropagate(new URL('https://cdn.other.example/x'), page, targets)).toBe(false);
  });

  it('tests RegExps against the full URL, global flag or not', () => {
    const targets = [/^https:\/\/[a-z]+\.partner\.example\/api\//g];
    for (let i = 0; i < 3; i++)
      expect(shouldPropagate(new URL('https://eu.partner.example/api/x'), page, targets)).toBe(true);
    expect(shouldPropagate(new URL('https://eu.partner.example/static/x'), page, targets)).toBe(false);
  });
});

describe('sanitizeUrl', () => {
  it('removes credentials and pre-signed URL signatures', () => {
    expect(sanitizeUrl(new URL('https://user:pw@files.example/a?X-Goog-Signature=abc&b=1'))).toBe(
      'https://files.example/a?X-Goog-Signature=REDACTED&b=1',
    );
    expect(sanitizeUrl(new URL('https://files.example/a?b=1'))).toBe('https://files.example/a?b=1');
  });
});
