/**
 * Tuning aid for the embedded matcher (WordNet concepts + GloVe word vectors): encodes the evaluation set's library and queries
 * in process (no database), ranks the library the way the library query does (rows sharing a key,
 * best cosine, scored as max(trigram, calibrated cosine)), and prints recall per split and, for
 * each missed paraphrase of the tuning split, the top 3 library entries with their scores and
 * the concepts they share. Held-out misses are never printed: only their totals.
 *
 *   npx tsx scripts/meaning-misses.ts            # misses of the tuning split
 *   npx tsx scripts/meaning-misses.ts --unrelated # also the unrelated queries answered (tuning split)
 *   npx tsx scripts/meaning-misses.ts --held-out  # also the held-out split's totals (not while tuning)
 *   npx tsx scripts/meaning-misses.ts --full      # the tuning split's misses with all 85 subjects in the library
 *   npx tsx scripts/meaning-misses.ts --explain "a puppy in a meadow" "a dog playing in a field of flowers"
 */
import { calibrate, cosine, type MeaningVector } from '@promptpix/core';
import { createCombinedEncoder, EMBEDDED_CALIBRATION } from '@promptpix/models/meaning-research';
import { HEAD_DIMENSIONS } from '@promptpix/models/meaning-research';
import { openWordNet } from '@promptpix/models/meaning-research';
import { EVAL_SUBJECTS, UNRELATED_QUERIES } from '@promptpix/testing/instant-eval-set';

const MIN_SCORE = Number(process.env.MIN_SCORE ?? 0.3);
const encoder = createCombinedEncoder();
/** CALIBRATION=floor,ceiling tries another calibration than the one in the code. */
const CALIBRATION = process.env.CALIBRATION
  ? { floor: Number(process.env.CALIBRATION.split(',')[0]), ceiling: Number(process.env.CALIBRATION.split(',')[1]) }
  : EMBEDDED_CALIBRATION;
const wordnet = openWordNet();

/** pg_trgm's similarity: alphanumeric words padded "  w ", unique trigrams, shared / union. */
function trigrams(text: string): Set<string> {
  const set = new Set<string>();
  for (const word of text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)) {
    const padded = `  ${word} `;
    for (let i = 0; i + 3 <= padded.length; i++) set.add(padded.slice(i, i + 3));
  }
  return set;
}
function trigramSimilarity(a: string, b: string): number {
  const ta = trigrams(a);
  const tb = trigrams(b);
  let shared = 0;
  for (const t of ta) if (tb.has(t)) shared++;
  const union = ta.size + tb.size - shared;
  return union === 0 ? 0 : shared / union;
}

const fullLibrary = EVAL_SUBJECTS.map((s) => ({ prompt: s.prompt, vector: encoder.encode(s.prompt) }));
/** Misses are read against the tuning subjects alone, so the held-out ones do not steer the tuning. */
const tuningLibrary = fullLibrary.filter((_, i) => EVAL_SUBJECTS[i].split === 'tuning');
/** The held-out subjects alone (with --held-out): totals only. */
const heldOutLibrary = fullLibrary.filter((_, i) => EVAL_SUBJECTS[i].split === 'held-out');
let library = tuningLibrary;

function rank(query: string) {
  const q = encoder.encode(query);
  const keys = new Set(q.keys);
  return library
    .filter((entry) => entry.vector.keys.some((k) => keys.has(k)))
    .map((entry) => {
      const cos = cosine(q, entry.vector);
      const trigram = trigramSimilarity(query, entry.prompt);
      return { ...entry, cos, trigram, score: Math.min(0.99, Math.max(trigram, calibrate(cos, CALIBRATION))) };
    })
    .sort((a, b) => b.cos - a.cos);
}

const label = (id: number) =>
  id < -100 ? `head[${id + 100 + HEAD_DIMENSIONS}]` : id < 0 ? `glove[${id + 100}]` : wordnet.synset(id).words.slice(0, 2).join('/');
function shared(a: MeaningVector, b: MeaningVector, n = 6): string {
  const bw = new Map(b.terms.map((t, i) => [t, b.weights[i]]));
  return a.terms
    .map((t, i) => ({ t, w: a.weights[i] * (bw.get(t) ?? 0) }))
    .filter((x) => x.w > 0)
    .sort((x, y) => y.w - x.w)
    .slice(0, n)
    .map((x) => `${label(x.t)} ${x.w.toFixed(3)}`)
    .join(', ');
}
function top(vector: MeaningVector, n = 12): string {
  return vector.terms
    .map((t, i) => ({ t, w: vector.weights[i] }))
    .sort((x, y) => y.w - x.w)
    .slice(0, n)
    .map((x) => `${label(x.t)}${x.t > 0 && vector.keys.includes(x.t) ? '*' : ''} ${x.w.toFixed(2)}`)
    .join(', ');
}

const args = process.argv.slice(2);
if (args[0] === '--explain') {
  const [a, b] = args.slice(1);
  const va = encoder.encode(a);
  console.log(`${a}: ${top(va, 30)}`);
  if (b) {
    const vb = encoder.encode(b);
    console.log(`${b}: ${top(vb, 30)}`);
    console.log(`cosine ${cosine(va, vb).toFixed(3)}; shared: ${shared(va, vb, 12)}`);
  }
} else {
  // --full: the tuning split's misses (and, with --unrelated, false matches) read against all 85
  // subjects in one library, where a paraphrase has more subjects to be confused with.
  const readIn = args.includes('--full') ? 'full library' : 'tuning library';
  const libraries = [
    ['tuning library', tuningLibrary],
    ['full library', fullLibrary],
  ] as Array<[string, typeof fullLibrary]>;
  if (args.includes('--held-out')) libraries.push(['held-out library', heldOutLibrary]);
  for (const [name, lib] of libraries) {
    library = lib;
    evaluate(name, name === readIn);
  }
}

function evaluate(name: string, printMisses: boolean) {
  const totals: Record<string, { n: number; hit: number; unrelated: number; answered: number; cosHit: number[] }> = {};
  for (const subject of EVAL_SUBJECTS) {
    if (!library.some((entry) => entry.prompt === subject.prompt)) continue;
    totals[subject.split] ??= { n: 0, hit: 0, unrelated: 0, answered: 0, cosHit: [] };
    const t = totals[subject.split];
    for (const query of subject.paraphrases) {
      const ranked = rank(query);
      const best = ranked[0];
      t.n++;
      if (best && best.prompt === subject.prompt && best.score >= MIN_SCORE) {
        t.hit++;
        t.cosHit.push(best.cos);
        continue;
      }
      if (subject.split !== 'tuning' || !printMisses) continue;
      console.log(`MISS "${query}" → want "${subject.prompt}"`);
      const own = ranked.find((r) => r.prompt === subject.prompt);
      const qv = encoder.encode(query);
      for (const r of ranked.slice(0, 3)) console.log(`   ${r.cos.toFixed(3)} (score ${r.score.toFixed(2)}) ${r.prompt}  [${shared(qv, r.vector)}]`);
      if (own && !ranked.slice(0, 3).includes(own)) console.log(`   own: ${own.cos.toFixed(3)} (rank ${ranked.indexOf(own) + 1}) [${shared(qv, own.vector)}]`);
      if (!own) console.log('   own: shares no key');
      console.log(`   query: ${top(qv)}`);
    }
  }
  for (const { query, split } of UNRELATED_QUERIES) {
    const t = totals[split];
    if (!t) continue;
    t.unrelated++;
    const best = rank(query)[0];
    if (best && best.score >= MIN_SCORE) {
      t.answered++;
      if (split === 'tuning' && printMisses && args.includes('--unrelated'))
        console.log(
          `FALSE "${query}" → "${best.prompt}" ${best.cos.toFixed(3)} (score ${best.score.toFixed(2)}) [${shared(encoder.encode(query), best.vector)}]`,
        );
    }
  }
  // Ranking alone (no threshold), and the cosine cut that answers at most 10% of unrelated queries.
  const bestCos = (query: string) => rank(query)[0]?.cos ?? 0;
  const unrelatedAll = UNRELATED_QUERIES.filter((u) => u.split === 'tuning')
    .map((u) => bestCos(u.query))
    .sort((a, b) => b - a);
  const cut = unrelatedAll[Math.floor(unrelatedAll.length * 0.1)] + 1e-6;
  for (const split of ['tuning', 'held-out'] as const) {
    let n = 0;
    let ranked1 = 0;
    let atCut = 0;
    const rankedCos: number[] = [];
    for (const subject of EVAL_SUBJECTS.filter((s) => s.split === split && library.some((e) => e.prompt === s.prompt))) {
      for (const query of subject.paraphrases) {
        n++;
        const best = rank(query)[0];
        if (best?.prompt !== subject.prompt) continue;
        ranked1++;
        rankedCos.push(best.cos);
        if (best.cos >= cut) atCut++;
      }
    }
    if (split === 'held-out' && !args.includes('--held-out')) continue;
    rankedCos.sort((a, b) => a - b);
    if (n > 0)
      console.log(
        `${name}, ${split}: ranked first ${(ranked1 / n).toFixed(3)} (median cosine ${rankedCos[rankedCos.length >> 1]?.toFixed(3)}); at cosine cut ${cut.toFixed(3)} (≤10% of tuning unrelated) ${(atCut / n).toFixed(3)}`,
      );
  }
  for (const [split, t] of Object.entries(totals)) {
    if (split === 'held-out' && !args.includes('--held-out')) continue;
    console.log(`${name}, ${split}: recall@1 ${(t.hit / t.n).toFixed(3)} (${t.hit}/${t.n}); unrelated answered ${t.answered}/${t.unrelated}`);
  }
  if (!totals.tuning) return;
  // The cosine spread of unrelated queries' best candidates: where the calibration floor should sit.
  const unrelatedCos = UNRELATED_QUERIES.filter((u) => u.split === 'tuning')
    .map((u) => rank(u.query)[0]?.cos ?? 0)
    .sort((a, b) => b - a);
  console.log(`tuning unrelated best cosines (desc): ${unrelatedCos.map((c) => c.toFixed(3)).join(' ')}`);
  const hitCos = totals.tuning.cosHit.sort((a, b) => a - b);
  console.log(
    `tuning hit cosines, lowest 20: ${hitCos
      .slice(0, 20)
      .map((c) => c.toFixed(3))
      .join(' ')}; median ${hitCos[Math.floor(hitCos.length / 2)].toFixed(3)}`,
  );
}
encoder.close();
wordnet.close();
