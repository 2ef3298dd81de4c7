/**
 * What the local embedding model adapter (INSTANT_EMBEDDINGS=local) costs on this machine: load
 * time, one prompt at a time (an instant request's shape), batches of 100 (the library indexer's
 * shape), CPU per prompt (the whole process: the model thread included) and the longest gap of a
 * 5 ms event-loop timer while batches run (the model runs on its own thread, so it stays near 5 ms
 * plus the tokenizer's and pooling's share). Without a directory it times the tests' tiny model.
 *
 *   npx tsx scripts/local-model-timing.ts                      # the tiny test model
 *   npx tsx scripts/local-model-timing.ts /models/all-MiniLM-L6-v2 [threads]
 */
import { createLocalEmbedder, locateLocalModel } from '@promptpix/models/meaning-research';
import { removeTinyModels, writeTinyModel } from '@promptpix/testing/local-model';

const PROMPTS = [
  'a red fox in a snowy forest',
  'a lighthouse on a rocky coast at sunset',
  'a bowl of fresh fruit on a wooden table',
  'a wolf in the snow at dusk',
];

async function main() {
  const dir = process.argv[2] ?? writeTinyModel({ poolingMode: 'mean_tokens' }).dir;
  const threads = Number(process.argv[3] ?? 1);
  const files = locateLocalModel(dir);
  const embedder = createLocalEmbedder({
    files,
    pooling: files.pooling ?? 'mean',
    maxTokens: Math.min(files.maxTokens ?? 256, 512),
    threads,
    calibration: { floor: 0.2, ceiling: 0.6 },
  });
  let started = performance.now();
  await embedder.ready();
  console.log(`${embedder.space}: loaded in ${(performance.now() - started).toFixed(0)} ms, ${threads} intra-op thread(s)`);

  const measure = async (label: string, rounds: number, texts: string[]) => {
    for (let i = 0; i < Math.min(rounds, 20); i++) await embedder.embed(texts);
    let maxGap = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
    }, 5);
    const cpu = process.cpuUsage();
    started = performance.now();
    for (let i = 0; i < rounds; i++) await embedder.embed(texts);
    const wall = performance.now() - started;
    const used = process.cpuUsage(cpu);
    clearInterval(timer);
    const n = rounds * texts.length;
    console.log(
      `${label}: ${(wall / n).toFixed(3)} ms wall and ${((used.user + used.system) / 1000 / n).toFixed(3)} ms CPU per prompt (${n} prompts); longest event-loop timer gap ${maxGap.toFixed(1)} ms`,
    );
  };
  await measure('one prompt per call', 500, [PROMPTS[0]]);
  await measure(
    'batches of 100',
    10,
    Array.from({ length: 100 }, (_, i) => `${PROMPTS[i % PROMPTS.length]} ${i}`),
  );
  await embedder.close();
  removeTinyModels();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
