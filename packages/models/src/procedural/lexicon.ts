import { hsl, type Hsl } from './color';

export type TimeOfDay = 'day' | 'dusk' | 'night';
/** What fills the lower part of the picture. */
export type Terrain = 'hills' | 'mountains' | 'waves' | 'dunes' | 'city';
export type Motif = 'sun' | 'moon' | 'stars' | 'clouds' | 'birds' | 'planets' | 'trees' | 'flowers' | 'snow' | 'rain' | 'embers' | 'cat' | 'dog' | 'robot';

/** What a recognised word does to a picture. Every field is optional: a theme only nudges. */
export interface Theme {
  /** Singular forms; a trailing "s" is dropped when matching. */
  readonly words: readonly string[];
  readonly time?: TimeOfDay;
  /** Sky gradient, top then horizon. */
  readonly sky?: readonly [Hsl, Hsl];
  readonly ground?: Hsl;
  readonly accent?: Hsl;
  /** `none`: open sky (space), unless another word brings a terrain. */
  readonly terrain?: Terrain | 'none';
  readonly motifs?: readonly Motif[];
  /** How the revised prompt names what the theme drew ("sunset palette"); none for the creatures. */
  readonly label?: string;
}

/**
 * Listed in priority order: where two matched themes both set a sky, the earlier one wins
 * ("snowy night" gets the night sky). Terrain and ground follow the prompt's word order instead.
 */
export const themes: readonly Theme[] = [
  {
    label: 'sunset palette',
    words: ['sunset', 'sunrise', 'dusk', 'dawn', 'evening', 'twilight'],
    time: 'dusk',
    sky: [hsl(262, 45, 30), hsl(24, 95, 64)],
    accent: hsl(35, 100, 60),
    motifs: ['sun'],
  },
  {
    label: 'night sky',
    words: ['night', 'midnight', 'moon', 'moonlight', 'star', 'starry', 'dark'],
    time: 'night',
    sky: [hsl(232, 60, 7), hsl(222, 50, 27)],
    motifs: ['moon', 'stars'],
  },
  {
    label: 'in space',
    words: ['space', 'galaxy', 'cosmos', 'cosmic', 'planet', 'astronaut', 'universe', 'nebula'],
    time: 'night',
    sky: [hsl(255, 60, 6), hsl(285, 45, 20)],
    terrain: 'none',
    motifs: ['stars', 'planets'],
  },
  {
    label: 'fire',
    words: ['fire', 'flame', 'lava', 'volcano', 'inferno', 'burning', 'dragon'],
    time: 'dusk',
    sky: [hsl(0, 65, 13), hsl(18, 90, 46)],
    ground: hsl(10, 35, 14),
    accent: hsl(32, 100, 55),
    terrain: 'mountains',
    motifs: ['embers'],
  },
  { label: 'rain', words: ['rain', 'rainy', 'storm', 'stormy', 'thunder'], sky: [hsl(215, 18, 30), hsl(210, 14, 58)], motifs: ['rain', 'clouds'] },
  {
    label: 'snow',
    words: ['snow', 'snowy', 'winter', 'ice', 'icy', 'frozen', 'arctic'],
    sky: [hsl(210, 50, 58), hsl(200, 35, 88)],
    ground: hsl(214, 24, 56),
    terrain: 'mountains',
    motifs: ['snow'],
  },
  {
    label: 'desert',
    words: ['desert', 'sand', 'dune', 'sahara', 'cactus'],
    time: 'day',
    sky: [hsl(205, 65, 60), hsl(40, 60, 86)],
    ground: hsl(35, 62, 62),
    terrain: 'dunes',
    motifs: ['sun'],
  },
  {
    label: 'underwater',
    words: ['underwater', 'undersea', 'seabed', 'seafloor', 'reef', 'aquarium'],
    time: 'day',
    sky: [hsl(212, 80, 16), hsl(188, 70, 42)],
    ground: hsl(40, 45, 52),
    terrain: 'dunes',
  },
  {
    label: 'sea',
    words: ['ocean', 'sea', 'beach', 'wave', 'water', 'lake', 'coast', 'island', 'surf'],
    sky: [hsl(200, 75, 55), hsl(190, 55, 86)],
    ground: hsl(205, 70, 38),
    terrain: 'waves',
  },
  { label: 'forest', words: ['forest', 'wood', 'woods', 'tree', 'jungle', 'pine', 'woodland'], ground: hsl(130, 40, 28), terrain: 'hills', motifs: ['trees'] },
  { label: 'mountains', words: ['mountain', 'peak', 'alps', 'cliff', 'valley'], ground: hsl(220, 15, 42), terrain: 'mountains' },
  { label: 'hills', words: ['hill', 'hillside', 'hilltop', 'countryside'], ground: hsl(95, 38, 38), terrain: 'hills' },
  { label: 'flowers', words: ['flower', 'garden', 'spring', 'meadow', 'field', 'bloom'], ground: hsl(100, 50, 40), terrain: 'hills', motifs: ['flowers'] },
  {
    label: 'city',
    words: ['city', 'town', 'street', 'skyline', 'cyberpunk', 'building', 'downtown', 'neon'],
    ground: hsl(240, 15, 22),
    accent: hsl(48, 100, 66),
    terrain: 'city',
  },
  { label: 'sky', words: ['sky', 'cloud', 'cloudy', 'bird', 'flying'], motifs: ['clouds', 'birds'] },
  { words: ['cat', 'kitten', 'kitty'], motifs: ['cat'] },
  { words: ['dog', 'puppy', 'hound'], motifs: ['dog'] },
  { words: ['robot', 'android', 'mech', 'cyborg', 'machine'], accent: hsl(185, 100, 60), motifs: ['robot'] },
];

/** Colour words pull the palette towards their hue. */
export const colourHues: Readonly<Record<string, number>> = {
  red: 0,
  crimson: 350,
  scarlet: 5,
  orange: 28,
  amber: 40,
  gold: 45,
  golden: 45,
  yellow: 54,
  lime: 90,
  green: 125,
  emerald: 145,
  teal: 175,
  turquoise: 172,
  cyan: 186,
  blue: 215,
  azure: 205,
  navy: 228,
  indigo: 250,
  purple: 275,
  violet: 282,
  lavender: 265,
  magenta: 310,
  pink: 330,
  rose: 342,
};

const stopWords = new Set(
  'a an the of in on at with and or to by for from over under into onto is are was my your its his her their this that these those very some'.split(' '),
);

const themeByWord = new Map<string, Theme>(themes.flatMap((t) => t.words.map((w) => [w, t] as const)));

/** Lower-cased words of a prompt, letters and digits of any script, stop words left out. */
export const wordsOf = (prompt: string): string[] => (prompt.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !stopWords.has(w));

const singular = (word: string) => (word.length > 3 && word.endsWith('s') ? word.slice(0, -1) : word);

export const themeOf = (word: string): Theme | undefined => themeByWord.get(word) ?? themeByWord.get(singular(word));

export const colourHueOf = (word: string): number | undefined => (Object.hasOwn(colourHues, word) ? colourHues[word] : undefined);
