import { describe, expect, it } from 'vitest';
import { MASK } from '../../src/index';
import { sanitizePageUrl } from '../../src/replay/page-url';
import { isSensitiveField, maskText, recordableValue, type FieldFacts } from '../../src/replay/privacy';
import { SHARED_HELPERS } from '../../src/replay/shared-helpers';
import { maskSerializedFields, type SerializedNode } from '../../src/replay/snapshot-fields';

/**
 * The recorder's privacy decisions as plain functions. How they are wired into rrweb, on real form fields, is proven
 * in Chromium by test/e2e/sdk-replay-recording.spec.ts.
 */

const plain: FieldFacts = {
  type: 'text',
  name: 'city',
  id: 'city',
  autocomplete: '',
  descriptions: ['City'],
  insideMaskedText: false,
};
const field = (facts: Partial<FieldFacts>): FieldFacts => ({ ...plain, ...facts });

describe('isSensitiveField', () => {
  it('leaves an ordinary field alone', () => {
    expect(isSensitiveField(plain, SHARED_HELPERS)).toBe(false);
    expect(
      isSensitiveField(field({ type: 'search', name: 'q', id: '', descriptions: ['Search products'] }), SHARED_HELPERS),
    ).toBe(false);
  });

  it.each(['password', 'email', 'tel', 'hidden'])('always redacts type=%s', (type) => {
    expect(isSensitiveField(field({ type }), SHARED_HELPERS)).toBe(true);
  });

  it.each([
    'cc-number',
    'cc-csc',
    'cc-exp-month',
    'cc-name',
    'current-password',
    'new-password',
    'one-time-code',
    'email',
    'tel-national',
    'section-pay billing cc-number',
  ])('redacts autocomplete="%s"', (autocomplete) => {
    expect(isSensitiveField(field({ autocomplete }), SHARED_HELPERS)).toBe(true);
  });

  it.each(['name', 'street-address', 'off', 'on', 'postal-code', 'username'])(
    'does not redact on autocomplete="%s" alone',
    (autocomplete) => {
      expect(isSensitiveField(field({ autocomplete }), SHARED_HELPERS)).toBe(false);
    },
  );

  it.each([
    ['name', { name: 'api_key' }],
    ['name', { name: 'otp' }],
    ['name', { name: 'cardNumber' }],
    ['id', { id: 'client-secret' }],
    ['id', { id: 'accessToken' }],
    ['label', { descriptions: ['Card number'] }],
    ['label', { descriptions: ['Your API key'] }],
    ['aria-label', { descriptions: ['', 'One-time code'] }],
    ['placeholder', { descriptions: ['PIN'] }],
  ] as const)('redacts a field whose %s looks sensitive: %j', (_, facts) => {
    expect(isSensitiveField(field(facts), SHARED_HELPERS)).toBe(true);
  });

  it('redacts any field inside a mask-text element', () => {
    expect(isSensitiveField(field({ insideMaskedText: true }), SHARED_HELPERS)).toBe(true);
  });
});

describe('masks', () => {
  it('masks a value with the fixed-length MASK, whatever its length, and keeps empty values empty', () => {
    expect(MASK).toBe('********');
    expect(recordableValue('a', true, SHARED_HELPERS)).toBe(MASK);
    expect(recordableValue('a much longer secret value', true, SHARED_HELPERS)).toBe(MASK);
    expect(recordableValue('', true, SHARED_HELPERS)).toBe('');
    expect(recordableValue('visible', false, SHARED_HELPERS)).toBe('visible');
  });

  it('masks text with MASK but keeps layout-only whitespace', () => {
    expect(maskText('Alice Example, 42 Road', SHARED_HELPERS)).toBe(MASK);
    expect(maskText('\n   ', SHARED_HELPERS)).toBe('\n   ');
  });
});

describe('maskSerializedFields', () => {
  const snapshot = (): SerializedNode => ({
    type: 0,
    id: 1,
    childNodes: [
      {
        type: 2,
        id: 2,
        tagName: 'form',
        attributes: {},
        childNodes: [
          {
            type: 2,
            id: 3,
            tagName: 'input',
            attributes: { type: 'password', value: 'default-secret' },
            childNodes: [],
          },
          {
            type: 2,
            id: 4,
            tagName: 'textarea',
            attributes: {},
            childNodes: [{ type: 3, id: 5, textContent: 'default text' }],
          },
          { type: 2, id: 6, tagName: 'input', attributes: { value: 'public' }, childNodes: [] },
          { type: 2, id: 7, tagName: 'input', attributes: { value: '' }, childNodes: [] },
          {
            type: 2,
            id: 8,
            tagName: 'p',
            attributes: { value: 'not a field' },
            childNodes: [{ type: 3, id: 9, textContent: 'text' }],
          },
          { type: 2, id: 10, tagName: 'input', attributes: { type: 'Submit', value: 'Pay now' } },
          { type: 2, id: 11, tagName: 'input', attributes: { type: 'checkbox', value: 'newsletter' } },
        ],
      },
    ],
  });

  it('masks value attributes and textarea text of the fields selected, wherever they are in the tree', () => {
    const tree = snapshot();
    const asked: number[] = [];
    maskSerializedFields(
      tree,
      (id) => {
        asked.push(id);
        return id !== 6;
      },
      SHARED_HELPERS,
    );
    expect(asked.sort()).toEqual([3, 4, 6, 7]);
    const [input, textarea, publicInput, empty, paragraph, submit, checkbox] = tree.childNodes![0]!.childNodes!;
    expect(input!.attributes!.value).toBe(MASK);
    expect(textarea!.childNodes![0]!.textContent).toBe(MASK);
    expect(publicInput!.attributes!.value).toBe('public');
    expect(empty!.attributes!.value).toBe('');
    expect(paragraph!.attributes!.value).toBe('not a field');
    expect(paragraph!.childNodes![0]!.textContent).toBe('text');
    // Button labels and checkbox values are the page's, not the user's (rrweb leaves them alone too).
    expect(submit!.attributes!.value).toBe('Pay now');
    expect(checkbox!.attributes!.value).toBe('newsletter');
  });

  it('walks a deep tree without recursion', () => {
    let node: SerializedNode = { type: 2, id: 0, tagName: 'input', attributes: { value: 'deep' } };
    const leaf = node;
    for (let id = 1; id < 20_000; id++) node = { type: 2, id, tagName: 'div', attributes: {}, childNodes: [node] };
    maskSerializedFields(node, () => true, SHARED_HELPERS);
    expect(leaf.attributes!.value).toBe(MASK);
  });
});

describe('sanitizePageUrl', () => {
  it('keeps an address without credentials exactly as it is', () => {
    const href = 'https://shop.test/search?q=red+shoes&page=2#results';
    expect(sanitizePageUrl(href)).toBe(href);
  });

  it('removes user info, pre-signed signatures and credential parameters in the query and the fragment', () => {
    expect(
      sanitizePageUrl('https://bob:hunter2@shop.test/a?Signature=s1&password=p1&api_key=k1&x=1#id_token=t1&state=ok'),
    ).toBe('https://shop.test/a?Signature=REDACTED&password=REDACTED&api_key=REDACTED&x=1#id_token=REDACTED&state=ok');
  });

  it('leaves a plain fragment alone', () => {
    expect(sanitizePageUrl('https://shop.test/docs#token-types')).toBe('https://shop.test/docs#token-types');
  });
});
