/**
 * The admission handler's answer and log line once the mutation has run (operator/src/admission/handler.ts
 * mutationDecision). The lookups, the deadline and the whole webhook: test/integration/operator/webhook.
 */
import { describe, expect, it } from 'vitest';
import { mutationDecision, type DecisionBase } from '../../../operator/src/admission/handler';

const base: DecisionBase = { uid: 'u-1', namespace: 'shop', pod: 'web-*' };

describe('mutationDecision', () => {
  it('answers an injection with its patch and warnings, logged as instrumented', () => {
    const patch = [{ op: 'add' as const, path: '/metadata/labels', value: {} }];
    const decided = mutationDecision(base, {
      patch,
      decision: {
        injected: true,
        reason: 'node agent injected',
        workload: 'web',
        container: 'app',
        lang: 'nodejs',
        strategy: 'sdk',
        confidence: 0.9,
        warnings: ['NODE_OPTIONS comes from a Secret'],
      },
    });
    expect(decided.level).toBe('info');
    expect(decided.msg).toBe('pod instrumented');
    expect(decided.review.response.patchType).toBe('JSONPatch');
    expect(JSON.parse(Buffer.from(decided.review.response.patch!, 'base64').toString('utf8'))).toEqual(patch);
    expect(decided.review.response.warnings).toEqual(['svc-zero: NODE_OPTIONS comes from a Secret']);
    expect(decided.fields).toMatchObject({
      ...base,
      workload: 'web',
      injected: true,
      lang: 'nodejs',
      patchOperations: 1,
      warnings: ['NODE_OPTIONS comes from a Secret'],
    });
  });

  it('answers a pod left alone without patch or warnings, and logs no empty warning list', () => {
    const decided = mutationDecision(
      { ...base, dryRun: true },
      { patch: [], decision: { injected: false, reason: 'opted out', workload: 'web', warnings: [] } },
    );
    expect(decided.msg).toBe('pod not instrumented');
    expect(decided.review.response).toEqual({ uid: 'u-1', allowed: true });
    expect(decided.fields).toMatchObject({ dryRun: true, injected: false, reason: 'opted out', patchOperations: 0 });
    expect(decided.fields.warnings).toBeUndefined();
  });

  it('passes no warnings to kubectl when nothing was injected', () => {
    const decided = mutationDecision(base, {
      patch: [],
      decision: { injected: false, reason: 'no language detected', workload: 'web', warnings: ['unreadable image'] },
    });
    expect(decided.review.response.warnings).toBeUndefined();
    expect(decided.fields.warnings).toEqual(['unreadable image']);
  });
});
