/**
 * What `svc-zero status` prints as a table (operator/src/cli/commands/status.ts statusReport), from SvcInstrumentations
 * as listed. The command against a cluster: test/integration/operator/cli.
 */
import { describe, expect, it } from 'vitest';
import { statusReport } from '../../../operator/src/cli/commands/status';
import type { Condition, SvcInstrumentation, WorkloadStatus } from '../../../operator/src/resource/types';

const oti = (namespace: string, status?: SvcInstrumentation['status']): SvcInstrumentation => ({
  apiVersion: 'svc.io/v1alpha1',
  kind: 'SvcInstrumentation',
  metadata: { name: 'default', namespace },
  spec: { apiKeySecretRef: { name: 'svc-api-key' } },
  status,
});

const workload = (name: string, state: WorkloadStatus['state']): WorkloadStatus => ({
  kind: 'Deployment',
  name,
  lang: 'nodejs',
  framework: 'express',
  strategy: 'sdk',
  confidence: 0.9,
  source: 'command',
  state,
});

const ready: Condition[] = [
  { type: 'Ready', status: 'True', reason: 'Reconciled', message: '', lastTransitionTime: '', observedGeneration: 1 },
];

describe('statusReport', () => {
  it('tells how to instrument when nothing is, naming the namespace asked about', () => {
    expect(statusReport([], undefined)).toEqual([
      'No namespace is instrumented. Instrument one with:',
      '  svc-zero instrument --namespace=<namespace> --api-key=<API_KEY>',
    ]);
    expect(statusReport([], 'shop')[0]).toBe('No SvcInstrumentation in namespace shop. Instrument one with:');
  });

  it('prints the instrumentation table alone when no workload is reported, with a hint for namespaces not reported on', () => {
    const lines = statusReport([oti('shop')], undefined);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^NAMESPACE +OTI +STRATEGY +READY/);
    expect(lines[0]).toMatch(/shop +default +sdk +Unknown +- +- +- +- +- +\(operator default\)/);
    expect(lines.slice(1)).toEqual([
      '',
      'The operator has not reported on shop yet; is it running? kubectl -n svc-system get pods',
    ]);
  });

  it('adds the workload table, and the restart hint when a workload is outdated', () => {
    const counts = { matching: 2, injected: 1, pending: 0, outdated: 1, failed: 0 };
    const status = { conditions: ready, counts, workloads: [workload('web', 'injected'), workload('api', 'outdated')] };
    const lines = statusReport([oti('shop', status)], undefined);
    expect(lines[0]).toMatch(/shop +default +sdk +True +2 +1 +0 +1 +0/);
    expect(lines[1]).toBe('');
    expect(lines[2]).toMatch(/^NAMESPACE +WORKLOAD +LANG/);
    expect(lines[2]).toMatch(/shop +deployment\/api +nodejs +express +sdk +0\.90 +outdated/);
    expect(lines.slice(3)).toEqual([
      '',
      'Outdated workloads run pods without the current agent: restart them (kubectl -n <namespace> rollout restart <kind>/<name>).',
    ]);
  });
});
