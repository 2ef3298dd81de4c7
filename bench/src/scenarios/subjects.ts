/**
 * The `subjects` phase: whether the built-in model draws what the prompt names (issue #33), in
 * this process, without HTTP.
 * 1. Quality: on the project's set of prompts with a concrete main subject (./subject-eval-set.ts),
 *    the share whose `revisedPrompt` names that subject (the model names only what it drew).
 * 2. Speed: one 1024² image, subjects and style included, rendered one at a time after a warm-up:
 *    wall time, and CPU time (the process's user + system time during the render, libvips'
 *    threads included: ms of one core), median and p95 of each.
 */
import { createProceduralModel } from '@promptpix/models';
import { mainSubjectDrawn, SUBJECT_CASES, type SubjectCase } from './subject-eval-set';

export interface SubjectsResult {
  cases: number;
  drawn: number;
  share: number;
  byKind: Record<string, { cases: number; drawn: number }>;
  missed: Array<{ prompt: string; revisedPrompt: string }>;
  render1024: { images: number; p50Ms: number; p95Ms: number; cpuP50Ms: number; cpuP95Ms: number };
}

const SPEED_PROMPTS = ['a lighthouse on a cliff at sunset', 'three red cats in the rain', 'a chef cooking in a kitchen', 'a puppy in a flower meadow'];
const SPEED_STYLES = [undefined, 'watercolor', 'cartoon', 'photorealistic'];

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

export async function runSubjectsPhase(log: (line: string) => void): Promise<SubjectsResult> {
  const model = createProceduralModel();
  const byKind: SubjectsResult['byKind'] = {};
  const missed: SubjectsResult['missed'] = [];
  let drawn = 0;
  for (const item of SUBJECT_CASES as readonly SubjectCase[]) {
    const image = await model.generate({ prompt: item.prompt, strength: 1, seed: 1, width: 64, height: 64 });
    const ok = mainSubjectDrawn(image.revisedPrompt, item.accept);
    byKind[item.kind] ??= { cases: 0, drawn: 0 };
    byKind[item.kind].cases++;
    if (ok) {
      drawn++;
      byKind[item.kind].drawn++;
    } else missed.push({ prompt: item.prompt, revisedPrompt: image.revisedPrompt ?? '' });
  }
  log(`subjects: main subject drawn for ${drawn}/${SUBJECT_CASES.length}`);

  const times: number[] = [];
  const cpuTimes: number[] = [];
  const request = (i: number) => ({
    prompt: SPEED_PROMPTS[i % SPEED_PROMPTS.length],
    style: SPEED_STYLES[Math.floor(i / SPEED_PROMPTS.length) % SPEED_STYLES.length],
    strength: 1,
    seed: i,
    width: 1024,
    height: 1024,
  });
  for (let i = 0; i < 4; i++) await model.generate(request(i));
  for (let i = 0; i < 16; i++) {
    const started = performance.now();
    const cpu = process.cpuUsage();
    await model.generate(request(i));
    const used = process.cpuUsage(cpu);
    times.push(performance.now() - started);
    cpuTimes.push((used.user + used.system) / 1000);
  }
  times.sort((a, b) => a - b);
  cpuTimes.sort((a, b) => a - b);
  const render1024 = {
    images: times.length,
    p50Ms: quantile(times, 0.5),
    p95Ms: quantile(times, 0.95),
    cpuP50Ms: quantile(cpuTimes, 0.5),
    cpuP95Ms: quantile(cpuTimes, 0.95),
  };
  log(
    `subjects: 1024² wall p50 ${render1024.p50Ms.toFixed(0)} ms, p95 ${render1024.p95Ms.toFixed(0)} ms; CPU p50 ${render1024.cpuP50Ms.toFixed(0)} ms, p95 ${render1024.cpuP95Ms.toFixed(0)} ms`,
  );
  return { cases: SUBJECT_CASES.length, drawn, share: drawn / SUBJECT_CASES.length, byKind, missed, render1024 };
}
