/**
 * `npm run golden:update`: rewrites each golden case's expectedPod from what mutatePod produces now. An explicit
 * command, never a side effect of a test run; read every rewritten file (git diff) before committing it. The
 * hand-written invariants (golden-invariants.ts) are never rewritten: a change they refuse is a change of behaviour.
 */
import { mutatePod } from '../../../operator/src/mutate/index.js';
import { applyPatch, GOLDEN_FILES, inputOf, loadGolden, saveGolden } from './golden-cases';

let rewritten = 0;
for (const file of GOLDEN_FILES) {
  const golden = loadGolden(file);
  const { patch, decision } = mutatePod(inputOf(golden));
  if (!decision.injected) continue;
  const expectedPod = applyPatch(golden.pod, patch);
  if (JSON.stringify(expectedPod) === JSON.stringify(golden.expectedPod)) continue;
  saveGolden(file, { ...golden, expectedPod });
  rewritten += 1;
  console.log(`rewrote ${file}`);
}
console.log(
  `${rewritten} of ${GOLDEN_FILES.length} golden cases rewritten; review them with git diff before committing`,
);
