import { chooseCharacterReference, type CharacterLook } from './characters';

// watercolor → painterly, cinematic → photographic (presets); "own-unmapped" has no family.
const familyOfStyle = (s: string) => ({ watercolor: 'painterly', cinematic: 'photographic', cartoon: 'illustration' })[s as 'watercolor'];
const look = (behavior: 'match' | 'lock', lockedStyle: string | null = null, lockedFamily: string | null = null): CharacterLook => ({
  behavior,
  lockedStyle,
  lockedFamily,
});

describe('chooseCharacterReference: every combination', () => {
  it.each([
    // behavior, lockedStyle, lockedFamily, scene style → choice
    ['match', null, null, undefined, 'original'],
    ['match', null, null, 'watercolor', 'prepared:painterly'],
    ['match', null, null, 'cinematic', 'prepared:photographic'],
    ['match', null, null, 'own-unmapped', 'original'],
    ['match', 'cartoon', 'painterly', 'cinematic', 'prepared:photographic'], // lock settings are ignored by Match
    ['lock', null, null, undefined, 'original'],
    ['lock', null, null, 'watercolor', 'original'],
    ['lock', null, 'painterly', undefined, 'prepared:painterly'],
    ['lock', null, 'painterly', 'cinematic', 'prepared:painterly'],
    ['lock', 'cartoon', null, 'watercolor', 'prepared:illustration'],
    ['lock', 'cartoon', 'painterly', 'cinematic', 'prepared:illustration'], // exact style beats family
    ['lock', 'own-unmapped', null, 'watercolor', 'original'],
    ['lock', 'own-unmapped', 'painterly', 'watercolor', 'original'], // a locked custom style keeps the originals
    ['lock', 'cinematic', null, undefined, 'prepared:photographic'],
  ] as const)('%s / locked style %s / locked family %s / scene %s → %s', (behavior, lockedStyle, lockedFamily, scene, expected) => {
    const choice = chooseCharacterReference(look(behavior, lockedStyle, lockedFamily), scene, familyOfStyle);
    expect(choice.source === 'original' ? 'original' : `prepared:${choice.family}`).toBe(expected);
  });

  it('uses the preset catalogue by default', () => {
    expect(chooseCharacterReference(look('match'), 'watercolor')).toEqual({ source: 'prepared', family: expect.any(String) });
    expect(chooseCharacterReference(look('match'), 'not-a-preset')).toEqual({ source: 'original' });
  });
});
