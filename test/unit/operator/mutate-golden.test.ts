/** The golden mutation cases (golden-cases.ts): read, never written here (`npm run golden:update` rewrites them). */
import { Pod } from 'kubernetes-models/v1';
import { describe, expect, it } from 'vitest';
import { SYSTEM_NAMESPACE } from '../../../operator/src/markers.js';
import { configFingerprint, mutatePod, parseDetection } from '../../../operator/src/mutate/index.js';
import { restrictedViolations } from '../../support/operator/pod-security.js';
import { applyPatch, GOLDEN_FILES as files, inputOf, loadGolden as load } from './golden-cases';
import { expectInvariant, INVARIANTS } from './golden-invariants';

describe('golden mutation cases', () => {
  it('has at least 30 cases', () => {
    expect(files.length).toBeGreaterThanOrEqual(30);
  });

  it('has a hand-written invariant for every case, and none for a case that is gone', () => {
    expect(Object.keys(INVARIANTS).sort()).toEqual(files);
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
      // What the case is about, checked on mutatePod's own result, whatever the golden file says.
      const invariant = INVARIANTS[file]!;
      expect(decision.injected, 'injected, as the invariant says').toBe(invariant.skipped === undefined);
      expectInvariant(invariant, input.pod, applyPatch(input.pod, patch), decision.reason);

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

      const mutated = applyPatch(golden.pod, patch);
      expect(mutated).toEqual(golden.expectedPod);

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
