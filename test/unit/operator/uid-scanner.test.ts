/**
 * The scan that picks `request.uid` out of an AdmissionReview too large to decode. It must find the uid wherever the
 * encoder put it and however the body is split into chunks, and it must never take another uid for it.
 */
import { describe, expect, it } from 'vitest';
import { UidScanner } from '../../../operator/src/admission/uid-scanner.js';

const UID = '0f8e2c4a-6b1d-4e3f-9a7c-5d2b8e1f0a93';

/** The uid the scanner reports for `text`, fed in chunks of `size` bytes. */
function scan(text: string, size = Number.MAX_SAFE_INTEGER): string | undefined {
  const bytes = Buffer.from(text, 'utf8');
  const scanner = new UidScanner();
  for (let at = 0; at < bytes.length; at += size) scanner.feed(bytes.subarray(at, at + size));
  return scanner.uid;
}

const envelope = (request: string) =>
  `{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":${request}}`;

describe('UidScanner', () => {
  it("finds request.uid in kube-apiserver's order, whatever the chunking, down to one byte at a time", () => {
    const body = envelope(
      `{"uid":"${UID}","kind":{"group":"","version":"v1","kind":"Pod"},"object":{"metadata":{"name":"p"}}}`,
    );
    for (const size of [1, 2, 3, 7, 64, body.length]) expect(scan(body, size), `chunks of ${size}`).toBe(UID);
  });

  it('finds it after everything else, skipping the uids of userInfo, of the pod and inside strings', () => {
    const object = JSON.stringify({
      metadata: { uid: 'pod-uid', annotations: { note: `{"request":{"uid":"fake"}} "uid":"fake" \\" [ {` } },
    });
    const body = `{"request" : { "userInfo": {"uid":"user-uid", "groups":["uid"]}, "object": ${object}, "oldObject": null, "uid" : "${UID}" }, "kind":"AdmissionReview"}`;
    expect(scan(body, 5)).toBe(UID);
  });

  it('keeps the first request.uid and resolves escapes in keys and values', () => {
    expect(scan(envelope(`{"u\\u0069d":"a\\u002db","uid":"second"}`))).toBe('a-b');
  });

  it('finds nothing where there is no string request.uid', () => {
    const cases = [
      '',
      ' '.repeat(1000),
      'not json at all "uid":"x"',
      `{"uid":"${UID}","request":{"kind":"x"}}`, // a top-level uid is not the request's
      envelope(`{"userInfo":{"uid":"${UID}"},"object":{"metadata":{"uid":"${UID}"}}}`),
      envelope(`{"uid":42,"kind":"x"}`),
      envelope(`{"uid":"","kind":"x"}`),
      envelope(`[{"uid":"${UID}"}]`), // request is not an object
      `[{"request":{"uid":"${UID}"}}]`, // the review is not an object
      `{"other":{"uid":"${UID}"}}`,
      envelope(`{"uid":"${'u'.repeat(1000)}"}`), // longer than any uid: not kept
      envelope(`{"uid":"${UID}`), // cut off before the closing quote
    ];
    for (const body of cases) expect(scan(body, 3), body.slice(0, 80)).toBeUndefined();
  });

  it('is not confused by multi-byte characters split across chunks', () => {
    const body = envelope(`{"object":{"metadata":{"annotations":{"ü":"日本語\\"}"}}},"uid":"${UID}"}`);
    for (const size of [1, 2, 5]) expect(scan(body, size)).toBe(UID);
  });
});
