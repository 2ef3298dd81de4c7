import type { AgeBucket } from '@promptpix/contracts';
import { KIDS_TERMS } from './kids-terms';
import { PROMPT_BLOCKED_REASON, PROMPT_NOT_FOR_CHILDREN_REASON, createPromptSafety, parseTermList } from './prompt-safety';

type Age = AgeBucket | undefined;

const EVERY_AGE: Age[] = [undefined, 'adults', 'bigkids', 'kids'];
const CHILD_AGES: AgeBucket[] = ['bigkids', 'kids'];
const GROWN_UP_AGES: Age[] = [undefined, 'adults'];

const blocked = (reason: string) => ({ allowed: false, reason });
const allowed = { allowed: true };

const promptsForAges = (ages: Age[], prompts: string[]) => prompts.flatMap((prompt) => ages.map((age): [string, Age] => [prompt, age]));
const blockedWordsForAges = (ages: Age[], rows: [prompt: string, word: string][]) =>
  rows.flatMap(([prompt, word]) => ages.map((age): [string, string, Age] => [prompt, word, age]));

describe('reasons', () => {
  it.each([
    [PROMPT_BLOCKED_REASON, 'Prompt is not allowed: it contains blocked terms'],
    [PROMPT_NOT_FOR_CHILDREN_REASON, 'Prompt is not allowed for this age group: it contains terms unsuitable for children'],
  ])('%s', (reason, text) => expect(reason).toBe(text));
});

describe('word list library, every age', () => {
  const safety = createPromptSafety();

  // Only what obscenity 0.4.6 catches: spaced-out letters ("f u c k", "f.u.c.k") are not.
  it.each(
    blockedWordsForAges(EVERY_AGE, [
      ['fuck you', 'fuck'],
      ['a FUCKING mess', 'fuck'],
      ['fuuuuuck', 'fuck'],
      ['what a load of sh1t', 'shit'],
      ['$hit happens', 'shit'],
      ['a b1tch', 'bitch'],
      ['p0rn', 'porn'],
      ['a s3xy pose', 'sexy'],
      ['ʃ𝐟ʃὗƈｋ ỹоứ', 'fuck'],
      // Leetspeak reads "!" as "i" and "(" as "c"; the second reading keeps these whole words.
      ['nice tits!', 'tits'],
      ['(tits)', 'tits'],
    ]),
  )('%j (%s) is blocked for %s', (prompt, word, age) => {
    const verdict = safety.check(prompt, age);
    expect(verdict).toEqual(blocked(PROMPT_BLOCKED_REASON));
    expect(JSON.stringify(verdict).toLowerCase()).not.toContain(word);
  });

  it.each(
    promptsForAges(EVERY_AGE, [
      'a skillful archer',
      'Scunthorpe town hall at dusk',
      'a grapefruit on a table',
      // Allowed for every age: the library ignores "ass" inside "assa…", and "assassin" is not on the kids list.
      "assassin's creed-like rooftops",
      'a bass guitar in a classroom',
      'the pen is mightier than the sword',
      'a titmouse on a branch',
      'cumulus clouds over Sussex',
      // Words the library flags that LIBRARY_FALSE_POSITIVES lets through.
      'the cockpit of a plane',
      'cumin and shiitake mushrooms',
      'a field of rapeseed',
      'a fire retardant spray',
      'a garden in the style of Pissarro',
    ]),
  )('%j is allowed for %s', (prompt, age) => {
    expect(safety.check(prompt, age)).toEqual(allowed);
  });
});

describe('kids terms', () => {
  const safety = createPromptSafety();
  const kidsOnly: [string, string][] = [
    ['a knight with a bloody sword', 'blood'],
    ['K1LL the dragon', 'kill'],
    ['toy guns!', 'gun'],
    ['(gun) on a table', 'gun'],
    ['a blood-soaked battlefield', 'blood'],
    ['a corpse in the attic', 'corpse'],
    ['a glass of WINE', 'wine'],
    ['a dead   body', 'dead body'],
    ['a nude portrait', 'nude'],
  ];

  it.each(blockedWordsForAges(CHILD_AGES, kidsOnly))('%j (%s) is blocked for %s', (prompt, word, age) => {
    const verdict = safety.check(prompt, age);
    expect(verdict).toEqual(blocked(PROMPT_NOT_FOR_CHILDREN_REASON));
    expect(JSON.stringify(verdict).toLowerCase()).not.toContain(word);
  });

  it.each(blockedWordsForAges(GROWN_UP_AGES, kidsOnly))('%j (%s) is allowed for %s', (prompt, _word, age) => {
    expect(safety.check(prompt, age)).toEqual(allowed);
  });

  it.each(
    promptsForAges(CHILD_AGES, [
      'a skillful archer',
      'a killer whale jumping',
      'a bloodhound puppy',
      'a gunnery museum',
      'a druggist',
      'a knight with a sword and a bow',
    ]),
  )('%j is allowed for %s', (prompt, age) => {
    expect(safety.check(prompt, age)).toEqual(allowed);
  });

  it.each(KIDS_TERMS.map((term) => [term]))('%j is blocked for kids', (term) => {
    expect(safety.check(`a picture of ${term} here`, 'kids')).toMatchObject({ allowed: false });
  });
});

describe('extraTerms, every age', () => {
  const safety = createPromptSafety({ extraTerms: ['Dragon Slayer', ' grape ', 'acme'] });

  it.each(
    blockedWordsForAges(EVERY_AGE, [
      ['a DRAGON SLAYER poster', 'dragon slayer'],
      ['the dragon\n  slayer', 'slayer'],
      ['dr4gon sl4yer', 'slayer'],
      ['a grape', 'grape'],
      ['ACME anvils', 'acme'],
      ['grape!', 'grape'],
    ]),
  )('%j (%s) is blocked for %s', (prompt, word, age) => {
    const verdict = safety.check(prompt, age);
    expect(verdict).toEqual(blocked(PROMPT_BLOCKED_REASON));
    expect(JSON.stringify(verdict).toLowerCase()).not.toContain(word);
  });

  it.each(
    promptsForAges(EVERY_AGE, [
      'a grapefruit on a table',
      'grapes in a bowl',
      'a guild of dragon slayers',
      'a dragon and a slayer',
      'the acmes of the mountains',
    ]),
  )('%j is allowed for %s', (prompt, age) => {
    expect(safety.check(prompt, age)).toEqual(allowed);
  });
});

describe('extraKidsTerms', () => {
  const safety = createPromptSafety({ extraKidsTerms: ['Clown', 'haunted house'] });
  const kidsOnly: [string, string][] = [
    ['a CLOWN at a party', 'clown'],
    ['a haunted   House on a hill', 'haunted house'],
    ['a knight with a bloody sword', 'blood'],
  ];

  it.each(blockedWordsForAges(CHILD_AGES, kidsOnly))('%j (%s) is blocked for %s', (prompt, word, age) => {
    const verdict = safety.check(prompt, age);
    expect(verdict).toEqual(blocked(PROMPT_NOT_FOR_CHILDREN_REASON));
    expect(JSON.stringify(verdict).toLowerCase()).not.toContain(word);
  });

  it.each(blockedWordsForAges(GROWN_UP_AGES, kidsOnly))('%j (%s) is allowed for %s', (prompt, _word, age) => {
    expect(safety.check(prompt, age)).toEqual(allowed);
  });

  it.each(promptsForAges(CHILD_AGES, ['a clownfish in a reef', 'a haunted houseboat']))('%j is allowed for %s', (prompt, age) => {
    expect(safety.check(prompt, age)).toEqual(allowed);
  });
});

describe('parseTermList', () => {
  it.each([
    [undefined, []],
    ['', []],
    [' , \n ,', []],
    ['acme', ['acme']],
    ['Acme, Dragon Slayer', ['acme', 'dragon slayer']],
    ['acme\ndragon slayer\r\nfoo', ['acme', 'dragon slayer', 'foo']],
    ['  Dragon   Slayer  ,,acme,', ['dragon slayer', 'acme']],
    ['acme, ACME,\nacme ', ['acme']],
  ])('%j → %j', (value, terms) => {
    expect(parseTermList(value)).toEqual(terms);
  });
});
