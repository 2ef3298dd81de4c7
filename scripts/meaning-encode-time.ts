/**
 * Encoding cost of the embedded meaning adapters, per prompt of the evaluation set: cold (a fresh
 * encoder, every word read from the files) and warm (the same prompts again, from the word caches).
 *
 *   npx tsx scripts/meaning-encode-time.ts
 */
import { createCombinedEncoder } from '@promptpix/models/meaning-research';
import { createConceptEncoder } from '@promptpix/models/meaning-research';
import { EVAL_SUBJECTS } from '@promptpix/testing/instant-eval-set';
const prompts = EVAL_SUBJECTS.flatMap((s) => [s.prompt, ...s.paraphrases]);
for (const [name, make] of [
  ['wordnet', () => createConceptEncoder()],
  ['combined', () => createCombinedEncoder()],
] as const) {
  const e = make();
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  for (const p of prompts) e.encode(p);
  const cold = Number(process.hrtime.bigint() - t0) / 1e6 / prompts.length;
  const coldCpu = (process.cpuUsage(cpu0).user + process.cpuUsage(cpu0).system) / 1e3 / prompts.length;
  const t1 = process.hrtime.bigint();
  const cpu1 = process.cpuUsage();
  for (let r = 0; r < 5; r++) for (const p of prompts) e.encode(p);
  const warm = Number(process.hrtime.bigint() - t1) / 1e6 / prompts.length / 5;
  const warmCpu = (process.cpuUsage(cpu1).user + process.cpuUsage(cpu1).system) / 1e3 / prompts.length / 5;
  console.log(
    `${name}: ${prompts.length} prompts; cold ${cold.toFixed(3)} ms wall (${coldCpu.toFixed(3)} ms CPU) per prompt; warm ${warm.toFixed(3)} ms wall (${warmCpu.toFixed(3)} ms CPU)`,
  );
  e.close();
}
