/**
 * A prompt's meaning as a weighted set of WordNet concepts: each content word (or two-word
 * collocation such as "outer space") is reduced to its lemma, its most frequent senses are
 * taken, and every sense spreads weight to the concepts near it (hypernyms, similar adjectives,
 * derivations such as sunny → sun, and the nouns of its definition). Two prompts that share no
 * word but speak of the same things ("a puppy in a meadow", "a dog playing in a field") then
 * share concepts, and the cosine of the two vectors says how much.
 */
import type { MeaningVector } from '@promptpix/core';
import { openWordNet, type PartOfSpeech, type WordNet } from './wordnet';
import type { ColdWordBudget } from './cold-word-budget';
import { meaningWords } from './prompt-words';

/** Bump when the expansion changes: stored vectors of another version are recomputed. */
export const CONCEPTS_VERSION = 2;

const STOPWORDS = new Set(
  (
    'a an the and or but of in on at by for with without to from into onto over under above below near beside between ' +
    'through across along around behind before after during while as is are was were be been being it its this that these those ' +
    'there here some any very much many more most few lots lot one two three their his her our your my me we you they he she him them ' +
    'up down out off about against than then so not no nor only own same just can will also has have had do does did ' +
    'image picture photo photograph shot scene view render illustration drawing painting style showing shows depicting full high quality detailed'
  ).split(' '),
);

/** Senses kept per word and their weights: the first sense is by far the most frequent. */
const SENSE_WEIGHTS = [1, 0.5, 0.3];
/** How a sense's weight carries to related concepts. */
const RELATION_WEIGHTS: Record<string, number> = { '@': 0.6, '@i': 0.6, '&': 0.6, '+': 0.5, '\\': 0.5, '=': 0.4 };
const SECOND_HYPERNYM_WEIGHT = 0.3;
const GLOSS_WEIGHT = 0.25;
/** The noun a definition is built on ("young domestic cat" → cat) is almost a hypernym. */
const GENUS_WEIGHT = 0.5;
/** A collocation's last word is its head (a red fox is a fox): it counts too, at this weight. */
const HEAD_WEIGHT = 0.6;
const POS_ORDER: PartOfSpeech[] = ['n', 'v', 'a', 'r'];

/** Regular inflections (WordNet's "morphy" detachment rules), tried when the word itself is not a lemma. */
const DETACHMENTS: Record<PartOfSpeech, Array<[string, string]>> = {
  n: [
    ['s', ''],
    ['ses', 's'],
    ['xes', 'x'],
    ['zes', 'z'],
    ['ches', 'ch'],
    ['shes', 'sh'],
    ['men', 'man'],
    ['ies', 'y'],
  ],
  v: [
    ['s', ''],
    ['ies', 'y'],
    ['es', 'e'],
    ['es', ''],
    ['ed', 'e'],
    ['ed', ''],
    ['ing', 'e'],
    ['ing', ''],
  ],
  a: [
    ['er', ''],
    ['est', ''],
    ['er', 'e'],
    ['est', 'e'],
  ],
  r: [],
};

export interface ConceptEncoder {
  readonly version: number;
  /** `coldWords`: the budget for words not in the cache (instant queries); none for the indexer. */
  encode(text: string, coldWords?: ColdWordBudget): MeaningVector;
  close(): void;
}

export function createConceptEncoder(options: { dictDir?: string; cacheSize?: number } = {}): ConceptEncoder {
  let wordnet: WordNet | undefined;
  const net = () => (wordnet ??= openWordNet(options.dictDir));
  const cacheSize = options.cacheSize ?? 20_000;
  const wordCache = new Map<string, Map<number, number>>();

  function lemmaSenses(word: string): Array<{ pos: PartOfSpeech; ids: readonly number[] }> {
    const found: Array<{ pos: PartOfSpeech; ids: readonly number[] }> = [];
    for (const pos of POS_ORDER) {
      let ids = net().senses(word, pos);
      if (ids.length === 0) {
        for (const [suffix, ending] of DETACHMENTS[pos]) {
          if (!word.endsWith(suffix) || word.length <= suffix.length + 1) continue;
          const stem = word.slice(0, -suffix.length);
          ids = net().senses(stem + ending, pos);
          // napping → napp → nap: a doubled final consonant before -ing/-ed.
          if (ids.length === 0 && ending === '' && /([b-df-hj-np-tv-z])\1$/.test(stem)) ids = net().senses(stem.slice(0, -1), pos);
          if (ids.length > 0) break;
        }
      }
      if (ids.length > 0) found.push({ pos, ids });
    }
    return found;
  }

  /** The concepts one word (or collocation) stands for; null when WordNet does not know it. */
  function wordConcepts(word: string, coldWords?: ColdWordBudget): Map<number, number> | null {
    const cached = wordCache.get(word);
    if (cached) return cached.size > 0 ? cached : null;
    if (coldWords && !coldWords.take()) return null;
    const concepts = new Map<number, number>();
    const add = (id: number, weight: number) => concepts.set(id, Math.max(concepts.get(id) ?? 0, weight));
    const byPos = lemmaSenses(word);
    // A word that is mostly a noun in prompts keeps its noun senses strongest.
    byPos.forEach(({ ids }, posRank) => {
      ids.slice(0, SENSE_WEIGHTS.length).forEach((id, rank) => {
        const weight = SENSE_WEIGHTS[rank] * (posRank === 0 ? 1 : 0.6);
        add(id, weight);
        const synset = net().synset(id);
        for (const pointer of synset.pointers) {
          const relation = RELATION_WEIGHTS[pointer.symbol];
          if (relation === undefined) continue;
          add(pointer.id, weight * relation);
          if (pointer.symbol === '@' || pointer.symbol === '@i') {
            for (const up of net().synset(pointer.id).pointers) if (up.symbol === '@') add(up.id, weight * SECOND_HYPERNYM_WEIGHT);
          }
        }
        // The words of the definition (a kitten is a "young domestic cat"), by their first sense.
        const genus = genusNoun(synset.gloss);
        for (const glossWord of glossWords(synset.gloss)) {
          const first = lemmaSenses(glossWord)[0];
          if (!first) continue;
          add(first.ids[0], weight * (glossWord === genus && first.pos === 'n' ? GENUS_WEIGHT : GLOSS_WEIGHT));
          for (const pointer of net().synset(first.ids[0]).pointers) {
            if (pointer.symbol === '\\' || pointer.symbol === '+') add(pointer.id, weight * GLOSS_WEIGHT * 0.5);
          }
        }
      });
    });
    if (wordCache.size >= cacheSize) wordCache.delete(wordCache.keys().next().value as string);
    wordCache.set(word, concepts);
    return concepts.size > 0 ? concepts : null;
  }

  function encode(text: string, coldWords?: ColdWordBudget): MeaningVector {
    const words = meaningWords(text)
      .toLowerCase()
      .replace(/[^a-z0-9' -]+/g, ' ')
      .split(/[\s-]+/)
      .map((w) => w.replace(/'s$|'/g, ''))
      .filter((w) => w.length > 1);
    const total = new Map<number, number>();
    // Each word (or collocation) has one voice, however many senses and relations it reaches.
    const merge = (concepts: Map<number, number>, scale = 1) => {
      const norm = Math.sqrt([...concepts.values()].reduce((sum, w) => sum + w * w, 0));
      for (const [id, weight] of concepts) total.set(id, (total.get(id) ?? 0) + (weight * scale) / norm);
    };
    for (let i = 0; i < words.length; i++) {
      // Two-word collocations first ("outer space", "ice cream"), so neither word is read alone.
      if (i + 1 < words.length && !STOPWORDS.has(words[i])) {
        const pair = wordConcepts(`${words[i]}_${words[i + 1]}`, coldWords);
        if (pair) {
          merge(pair);
          const head = wordConcepts(words[i + 1], coldWords);
          if (head) merge(head, HEAD_WEIGHT);
          i++;
          continue;
        }
      }
      if (STOPWORDS.has(words[i])) continue;
      const concepts = wordConcepts(words[i], coldWords);
      if (concepts) merge(concepts);
    }
    return unitVector(total);
  }

  return {
    version: CONCEPTS_VERSION,
    encode,
    close() {
      wordnet?.close();
      wordnet = undefined;
      wordCache.clear();
    },
  };
}

/** The head noun of a definition's first phrase: the word before "that", "of", "with", ... */
function genusNoun(gloss: string): string | undefined {
  const phrase = gloss.split(/[;,"(]| that | which | who | of | with | in | for | from | on | used | having | to /)[0];
  const words = phrase
    .toLowerCase()
    .replace(/[^a-z ]+/g, ' ')
    .trim()
    .split(/\s+/);
  return words[words.length - 1];
}

/** The content words of a definition ("young domestic cat" → young, domestic, cat), first clause only. */
function glossWords(gloss: string): string[] {
  const definition = gloss.split(/[;"]/)[0];
  return definition
    .toLowerCase()
    .replace(/[^a-z ]+/g, ' ')
    .split(' ')
    .filter((w) => w.length > 2 && !STOPWORDS.has(w) && !GLOSS_STOPWORDS.has(w))
    .slice(0, 6);
}
const GLOSS_STOPWORDS = new Set(
  'which who whom whose used usually especially often something someone person thing kind type part having being made small large various etc'.split(' '),
);

/**
 * The vector at unit length. Its keys (what the library's index is searched by) are the concepts
 * a word reaches through its senses and hypernyms, not the faint ones from definitions.
 */
function unitVector(weights: Map<number, number>): MeaningVector {
  // The heaviest MAX_TERMS concepts carry the meaning; the tail only costs the cosine its time.
  const entries = [...weights]
    .sort((a, b) => b[1] - a[1])
    .slice(0, MAX_TERMS)
    .sort((a, b) => a[0] - b[0]);
  const norm = Math.sqrt(entries.reduce((sum, [, w]) => sum + w * w, 0));
  return {
    terms: entries.map(([id]) => id),
    weights: entries.map(([, w]) => (norm > 0 ? Math.round((w / norm) * 1e4) / 1e4 : 0)),
    keys: entries.filter(([, w]) => w >= KEY_WEIGHT).map(([id]) => id),
  };
}
const KEY_WEIGHT = 0.29;
const MAX_TERMS = 64;
