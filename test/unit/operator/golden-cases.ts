/**
 * Golden mutation cases (issue 7): each file under golden/ is a specification written and checked by hand against
 * the rules in docs/zero-mutation.md: an input pod, its namespace and `oti`, the expected decision and, for injected
 * pods, the expected pod after the produced JSON Patch is applied. The test (mutate-golden.test.ts) only reads them;
 * `npm run golden:update` (update-golden.ts) rewrites expectedPod from the current output, and every rewritten file
 * must be read again before it is committed.
 */
import type { V1Namespace, V1Pod } from '@kubernetes/client-node';
import jsonpatch, { type Operation } from 'fast-json-patch';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mutatePod, type MutationDecision, type MutationInput } from '../../../operator/src/mutate/index.js';
import type { OperatorSettings, SvcInstrumentation } from '../../../operator/src/resource/types.js';

export interface GoldenCase {
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

/** The case files, in name order. */
export const GOLDEN_FILES = readdirSync(GOLDEN_DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();

export function loadGolden(file: string): GoldenCase {
  return JSON.parse(readFileSync(join(GOLDEN_DIR, file), 'utf8')) as GoldenCase;
}

export function saveGolden(file: string, golden: GoldenCase): void {
  writeFileSync(join(GOLDEN_DIR, file), `${JSON.stringify(golden, null, 2)}\n`);
}

export function inputOf(golden: GoldenCase): MutationInput {
  return {
    pod: golden.pod,
    namespace: golden.namespace,
    instrumentation: golden.instrumentation ?? undefined,
    settings: { ...BASE_SETTINGS, ...golden.settings },
  };
}

export function applyPatch(pod: V1Pod, patch: ReturnType<typeof mutatePod>['patch']): V1Pod {
  // validateOperation=true: a malformed operation or a path that does not resolve throws instead of being ignored.
  return jsonpatch.applyPatch(structuredClone(pod), patch as Operation[], true, false).newDocument;
}
