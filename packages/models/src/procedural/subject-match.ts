/**
 * Which icon draws a noun: by the icon's own name first, then by meaning through WordNet (a
 * synonym in the noun's first senses: "automobile" → car's synset; then a hypernym a few steps up:
 * "puppy" → dog; "chef" → cook), then a short table of nearest kin the sets name differently
 * ("doctor" → health worker). A noun no icon comes near resolves to nothing: the scene is drawn
 * without it, and the revised prompt does not name it.
 */
import { openWordNet, type WordNet } from '../meaning/wordnet';

export interface IconMatch {
  /** The icon's name in its set. */
  readonly icon: string;
  /** What was drawn, in words ("police car"). */
  readonly label: string;
  /** How sure: 3 the icon's name, 2 a synonym, below 2 a kin further away. */
  readonly score: number;
}

export interface SubjectMatcher {
  /** The icon for a noun phrase (its words, lower case; the last is the head), if any comes near. */
  match(words: readonly string[]): IconMatch | undefined;
}

/** Nearest kin the sets name differently from WordNet. */
const KIN: Readonly<Record<string, string>> = {
  doctor: 'health-worker',
  physician: 'health-worker',
  nurse: 'health-worker',
  surgeon: 'health-worker',
  dentist: 'health-worker',
  kitten: 'cat',
  kitty: 'cat',
  policeman: 'police-officer',
  policewoman: 'police-officer',
  cop: 'police-officer',
  chef: 'cook',
  baker: 'cook',
  programmer: 'technologist',
  developer: 'technologist',
  coder: 'technologist',
  engineer: 'technologist',
  builder: 'construction-worker',
  mechanic: 'mechanic',
  painter: 'artist',
  car: 'automobile',
  boat: 'sailboat',
  truck: 'delivery-truck',
  apple: 'red-apple',
  tree: 'deciduous-tree',
  coffee: 'hot-beverage',
  tea: 'teacup-without-handle',
  cake: 'shortcake',
  book: 'open-book',
  clock: 'mantelpiece-clock',
  sofa: 'couch-and-lamp',
  couch: 'couch-and-lamp',
  ramen: 'steaming-bowl',
  noodles: 'steaming-bowl',
  soup: 'pot-of-food',
  spaceship: 'rocket',
  spacecraft: 'rocket',
};

/** Nouns that name no thing to draw in an image prompt. */
const NOT_SUBJECTS = new Set(
  (
    'style art artwork image picture photo photograph painting drawing illustration render view scene background foreground ' +
    'top side front back middle center centre left right day time light color colour shade detail quality portrait close closeup ' +
    'lot kind sort type bit piece way thing something anything everything nothing'
  ).split(' '),
);

/** WordNet's noun detachment rules ("morphy"), tried when the word itself is not a lemma. */
const NOUN_DETACH: ReadonlyArray<readonly [string, string]> = [
  ['ies', 'y'],
  ['ches', 'ch'],
  ['shes', 'sh'],
  ['xes', 'x'],
  ['ses', 's'],
  ['men', 'man'],
  ['s', ''],
];

const HYPERNYM_DEPTH = 3;
/** What being the phrase's head adds to a word's score. */
const HEAD_BONUS = 0.6;
/** Kinds too broad to stand for what they include ("tower" is a construction, not the 🚧 sign). */
const TOO_GENERAL = new Set(['construction', 'structure', 'fire', 'object', 'thing', 'device', 'container', 'symbol', 'sign', 'light']);
/** Senses whose synonyms count, and senses whose kinds (hypernyms) count: the first are the common ones. */
const SYNONYM_SENSES = 3;
const KIN_SENSES = 2;

const humanise = (icon: string) => icon.replaceAll('-', ' ');

/**
 * A matcher over the icon names `names` (lower case, words joined by `-`). Names of people at work
 * ("person-cook", "woman-firefighter") are reachable by their trade ("cook").
 */
export const createSubjectMatcher = (names: Iterable<string>, wordnet: () => WordNet = sharedWordNet): SubjectMatcher => {
  const index = new Map<string, string>();
  const later: Array<[string, string]> = [];
  for (const name of names) {
    index.set(name, name);
    const trade = /^(person|man|woman)-(.+)$/.exec(name);
    if (trade) later.push([trade[2], name]);
    const face = /^(.+)-face$/.exec(name);
    if (face) later.push([face[1], name]);
  }
  // person-… before man-… and woman-…: the sets list names alphabetically, so sort the trades.
  later.sort((a, b) => (a[1].startsWith('person-') ? 0 : 1) - (b[1].startsWith('person-') ? 0 : 1));
  for (const [key, name] of later) if (!index.has(key)) index.set(key, name);

  const cache = new Map<string, IconMatch | null>();
  const byName = (key: string, score: number): IconMatch | undefined => {
    const icon = index.get(key);
    return icon ? { icon, label: humanise(key === icon ? icon : key), score } : undefined;
  };

  const lemmas = (word: string): string[] => {
    const out = [word];
    for (const [suffix, ending] of NOUN_DETACH) if (word.length > suffix.length + 2 && word.endsWith(suffix)) out.push(word.slice(0, -suffix.length) + ending);
    return out;
  };

  /** A present participle ("running", "sleeping") describes; it is not the subject. */
  const isParticiple = (word: string): boolean => {
    if (!word.endsWith('ing') || word.length < 6) return false;
    const stem = word.slice(0, -3);
    const net = wordnet();
    return [stem, `${stem}e`, stem.slice(0, -1)].some((v) => net.senses(v, 'v').length > 0);
  };

  const byMeaning = (lemma: string): IconMatch | undefined => {
    const net = wordnet();
    const senses = net
      .senses(lemma, 'n')
      .slice(0, SYNONYM_SENSES)
      .map((id) => net.synset(id));
    // A synonym in any of the first senses ("beacon": its third sense is the lighthouse) before any kin.
    for (const [i, synset] of senses.entries()) {
      const found = synset.words.map((w) => byName(w.replaceAll('_', '-'), 2 - i * 0.05)).find(Boolean);
      if (found) return found;
    }
    for (const synset of senses.slice(0, KIN_SENSES)) {
      let frontier = [synset];
      for (let depth = 1; depth <= HYPERNYM_DEPTH; depth++) {
        frontier = frontier.flatMap((s) => s.pointers.filter((p) => p.symbol === '@' || p.symbol === '@i').map((p) => net.synset(p.id)));
        const found = frontier
          .flatMap((s) => s.words)
          .filter((w) => !TOO_GENERAL.has(w))
          .map((w) => byName(w.replaceAll('_', '-'), 2 - depth * 0.25))
          .find(Boolean);
        if (found) return found;
      }
    }
    return undefined;
  };

  const matchWord = (word: string): IconMatch | undefined => {
    let found = cache.get(word);
    if (found === undefined) {
      found = null;
      if (!NOT_SUBJECTS.has(word) && !/^\d+$/.test(word) && !isParticiple(word)) {
        const forms = lemmas(word);
        found =
          forms.map((f) => byName(f, 3)).find(Boolean) ??
          forms.map((f) => (Object.hasOwn(KIN, f) ? byName(KIN[f], 1.5) : undefined)).find(Boolean) ??
          forms.map(byMeaning).find(Boolean) ??
          null;
        if (found && Object.hasOwn(KIN, word) && found.score < 1.5) found = byName(KIN[word], 1.5) ?? found;
      }
      if (cache.size >= 5000) cache.delete(cache.keys().next().value as string);
      cache.set(word, found);
    }
    return found ?? undefined;
  };

  return {
    match(words) {
      if (words.length === 0) return undefined;
      // The whole phrase as one name ("police car", "fire engine"), by name or by meaning.
      if (words.length > 1) {
        const joined = words.join('-');
        const whole = byName(joined, 3) ?? byMeaning(words.join('_'));
        if (whole) return whole;
      }
      // A modifier whose sense is a kind of the head names it ("beacon tower": the beacon that is a tower is the lighthouse).
      const head = words[words.length - 1];
      const net = wordnet();
      for (const modifier of words.slice(0, -1)) {
        for (const id of net.senses(modifier, 'n')) {
          const synset = net.synset(id);
          const isHead = synset.pointers.some((p) => p.symbol === '@' && net.synset(p.id).words.includes(head));
          const found = isHead && synset.words.map((w) => byName(w.replaceAll('_', '-'), 2.5)).find(Boolean);
          if (found) return found;
        }
      }
      // Else its best word, the head (the last that matches) counting for more: a paper boat is a boat.
      let best: IconMatch | undefined;
      let bestScore = 0;
      for (let i = words.length - 1; i >= 0; i--) {
        const m = matchWord(words[i]);
        const score = m ? m.score + (best ? 0 : HEAD_BONUS) : 0;
        if (m && score > bestScore) [best, bestScore] = [m, score];
      }
      return best;
    },
  };
};

let net: WordNet | undefined;
const sharedWordNet = (): WordNet => (net ??= openWordNet());
