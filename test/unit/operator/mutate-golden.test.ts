/**
 * Golden mutation cases (issue 7): each file under golden/ is a specification written and checked by hand against
 * the rules in docs/zero-mutation.md: an input pod, its namespace and `oti`, the expected decision and, for injected
 * pods, the expected pod after the produced JSON Patch is applied. `UPDATE_GOLDEN=1` rewrites expectedPod from the
 * current output; every rewritten file must be read again before it is committed.
 */
import type { V1Namespace, V1Pod } from '@kubernetes/client-node';
import jsonpatch, { type Operation } from 'fast-json-patch';
import { Pod } from 'kubernetes-models/v1';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SYSTEM_NAMESPACE } from '../../../operator/src/markers.js';
import { configFingerprint, mutatePod, parseDetection, type MutationDecision, type MutationInput } from '../../../operator/src/mutate/index.js';
import type { OperatorSettings, SvcInstrumentation } from '../../../operator/src/resource/types.js';
import { restrictedViolations } from '../../support/operator/pod-security.js';

interface GoldenCase {
  description: string;
  namespace: V1Namespace;
  instrumentation: SvcInstrumentation | null;
  /** Overrides of BASE_SETTINGS for this case. */
  settings?: Partial<OperatorSettings>;
  pod: V1Pod;
  expectedDecision: Partial<MutationDecision>;
  /** The pod after the patch; absent when the pod is left alone (the patch must then be empty). */
  expectedPod?: V1Pod;
}

/** The operator settings every case runs with (the Helm chart's defaults, in spirit). */
export const BASE_SETTINGS: OperatorSettings = {
  version: '0.1.0',
  images: {
    nodejs: 'ghcr.io/svc-dev/svc-zero-agent-node:0.1.0',
    java: 'ghcr.io/svc-dev/svc-zero-agent-java:0.1.0',
    python: 'ghcr.io/svc-dev/svc-zero-agent-python:0.1.0',
    ebpf: 'docker.io/otel/ebpf-instrument:v0.1.0',
  },
  ebpfMemoryLimit: '512Mi',
};

const GOLDEN_DIR = join(import.meta.dirname, 'golden');
const UPDATE = process.env.UPDATE_GOLDEN === '1';

const files = readdirSync(GOLDEN_DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();

function load(file: string): GoldenCase {
  return JSON.parse(readFileSync(join(GOLDEN_DIR, file), 'utf8')) as GoldenCase;
}

function inputOf(golden: GoldenCase): MutationInput {
  return {
    pod: golden.pod,
    namespace: golden.namespace,
    instrumentation: golden.instrumentation ?? undefined,
    settings: { ...BASE_SETTINGS, ...golden.settings },
  };
}

function apply(pod: V1Pod, patch: ReturnType<typeof mutatePod>['patch']): V1Pod {
  // validateOperation=true: a malformed operation or a path that does not resolve throws instead of being ignored.
  return jsonpatch.applyPatch(structuredClone(pod), patch as Operation[], true, false).newDocument;
}

describe('golden mutation cases', () => {
  it('has at least 30 cases', () => {
    expect(files.length).toBeGreaterThanOrEqual(30);
  });

  describe.each(files)('%s', (file) => {
    const golden = load(file);

    it(golden.description, () => {
      const input = inputOf(golden);
      const before = structuredClone(input);
      const { patch, decision } = mutatePod(input);

      expect(input, 'mutatePod must not modify its input').toEqual(before);
      expect(decision).toMatchObject(golden.expectedDecision);
      expect(decision.reason).not.toBe('');

      if (!decision.injected) {
        expect(patch).toEqual([]);
        expect(golden.expectedPod, 'a skipped case has no expectedPod').toBeUndefined();
        return;
      }

      // Only additions, and replacements of env values the mutation extends (NODE_OPTIONS …); never a removal.
      for (const op of patch) {
        expect(['add', 'replace']).toContain(op.op);
        if (op.op === 'replace') expect(op.path).toMatch(/^\/spec\/containers\/\d+\/env\/\d+\/value$/);
      }

      const mutated = apply(golden.pod, patch);
      if (UPDATE) {
        writeFileSync(join(GOLDEN_DIR, file), `${JSON.stringify({ ...golden, expectedPod: mutated }, null, 2)}\n`);
      } else {
        expect(mutated).toEqual(golden.expectedPod);
      }

      // The mutated pod is a valid Kubernetes Pod (JSON schema of the core/v1 API).
      expect(() => new Pod(mutated as ConstructorParameters<typeof Pod>[0]).validate()).not.toThrow();

      // What the mutation adds passes Pod Security `restricted`, so it never gets a pod refused: the init container
      // always; the eBPF sidecar is the documented exception (it needs capabilities, hence the fallback rule).
      const added = (mutated.spec?.initContainers ?? []).filter((container) => container.name === 'svc-agent-init');
      expect(restrictedViolations({ containers: added })).toEqual([]);

      // Mutating the mutated pod again changes nothing (re-admission, reinvocationPolicy: IfNeeded).
      expect(mutatePod({ ...input, pod: mutated }).patch).toEqual([]);

      // The detection annotation records the namespace configuration it was injected under.
      const detection = parseDetection(mutated.metadata?.annotations?.['svc.io/detection'] ?? '');
      expect(detection).toMatchObject({
        lang: decision.lang,
        strategy: decision.strategy,
        container: decision.container,
        version: input.settings.version,
        config: configFingerprint(golden.instrumentation!.spec, input.settings),
      });
    });
  });

  it('never patches a pod in svc-system, whatever the pod and oti say', () => {
    for (const file of files) {
      const golden = load(file);
      const input = inputOf(golden);
      const { patch, decision } = mutatePod({
        ...input,
        namespace: { ...input.namespace, metadata: { ...input.namespace.metadata, name: SYSTEM_NAMESPACE } },
        instrumentation: input.instrumentation ?? load(files[0]!).instrumentation!,
      });
      expect(patch, file).toEqual([]);
      expect(decision.injected).toBe(false);
    }
  });
});
