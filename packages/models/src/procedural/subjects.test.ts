import { iconSets } from './icons';
import { createSubjectMatcher, type SubjectMatcher } from './subject-match';
import { subjectsOf } from './subjects';

// The installed sets and WordNet: the index is built once for the file.
const matcher = createSubjectMatcher(iconSets().names());
const icon = (words: string) => matcher.match(words.split(' '))?.icon;

describe('subject matcher', () => {
  it.each([
    ['lighthouse', 'lighthouse'],
    ['dog', 'dog'],
    ['puppy', 'dog'],
    ['puppies', 'dog'],
    ['automobile', 'automobile'],
    ['car', 'automobile'],
    ['beacon tower', 'lighthouse'],
    ['police car', 'police-car'],
    ['paper boat', 'sailboat'],
    ['kitten', 'cat'],
    ['chef', 'cook'],
    ['firefighter', 'firefighter'],
    ['doctor', 'health-worker'],
    ['pizza', 'pizza'],
    ['bicycle', 'bicycle'],
    ['castle', 'castle'],
  ])('%s → %s', (words, expected) => {
    expect(icon(words)).toBe(expected);
  });

  it.each(['xyzzy', 'quux', 'running', 'style', 'background'])('%s → nothing', (word) => {
    expect(icon(word)).toBeUndefined();
  });

  it('every nearest-kin name is an icon of the sets', () => {
    for (const word of [
      'doctor',
      'nurse',
      'policeman',
      'programmer',
      'builder',
      'painter',
      'boat',
      'spaceship',
      'baker',
      'ramen',
      'soup',
      'sofa',
      'clock',
      'book',
      'cake',
      'tea',
      'coffee',
      'tree',
      'apple',
      'truck',
    ]) {
      expect(icon(word)).toBeDefined();
    }
  });
});

/** A matcher that knows a few nouns by name, so the parsing is tested on its own. */
const fake: SubjectMatcher = {
  match: (words) => {
    const known = ['cat', 'table', 'car', 'lighthouse', 'dog', 'tree'];
    const head = [...words].reverse().find((w) => known.includes(w.replace(/s$/, '')));
    return head ? { icon: head.replace(/s$/, ''), label: head.replace(/s$/, ''), score: 3 } : undefined;
  },
};

describe('subjectsOf', () => {
  it('reads counts and colours', () => {
    expect(subjectsOf('three cats and a red car', fake).map((s) => [s.match.icon, s.count, s.colour?.word])).toEqual([
      ['cat', 3, undefined],
      ['car', 1, 'red'],
    ]);
    expect(subjectsOf('12 dogs', fake)[0].count).toBe(5);
  });

  it('reads relations to other subjects and to the setting', () => {
    expect(subjectsOf('a cat on a table', fake)[0].relation).toEqual({ kind: 'on', to: 1 });
    expect(subjectsOf('a cat sitting under the old table', fake)[0].relation).toEqual({ kind: 'under', to: 1 });
    expect(subjectsOf('a dog in front of a car', fake)[0].relation).toEqual({ kind: 'in front of', to: 1 });
    expect(subjectsOf('a dog next to a car', fake)[0].relation).toEqual({ kind: 'beside', to: 1 });
    expect(subjectsOf('a lighthouse on a cliff at sunset', fake)).toEqual([
      { match: { icon: 'lighthouse', label: 'lighthouse', score: 3 }, words: ['lighthouse'], count: 1, relation: { kind: 'on', to: 'cliff' } },
    ]);
  });

  it('leaves out words no icon matches, and setting words', () => {
    expect(subjectsOf('a glorp in the rain at night', fake)).toEqual([]);
    expect(subjectsOf('', fake)).toEqual([]);
  });
});
