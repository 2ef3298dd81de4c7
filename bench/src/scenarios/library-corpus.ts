/**
 * A shared library that looks like real prompts: thousands of distinct subjects (a quality and a
 * thing), doing something or not, in one of many settings, under one of many lights. Deterministic:
 * row i is always the same prompt, so 1k is the start of 100k.
 */
const QUALITIES = (
  'red old tiny giant golden silver wooden ancient modern rusty glowing sleepy curious happy lonely ' +
  'wild friendly fluffy shiny broken colorful dark bright misty frozen tropical mechanical striped ' +
  'spotted elegant humble noisy quiet proud brave gentle clumsy graceful mysterious abandoned ' +
  'enormous little young elderly fierce playful hungry tired royal wet dusty painted crystal marble ' +
  'velvet paper neon vintage futuristic rustic'
).split(' ');
const THINGS = (
  'fox wolf bear owl eagle sparrow heron swan duck goose horse pony donkey cow sheep goat pig rabbit ' +
  'squirrel hedgehog deer moose elk bison camel llama elephant giraffe zebra lion tiger leopard cheetah ' +
  'panda koala kangaroo monkey gorilla whale dolphin shark octopus jellyfish turtle tortoise frog lizard ' +
  'snake crocodile butterfly bee beetle spider dragon unicorn robot knight wizard witch pirate sailor ' +
  'farmer baker chef painter dancer musician violinist drummer astronaut diver climber cyclist runner ' +
  'child girl boy grandmother grandfather couple family teacher doctor nurse firefighter soldier monk ' +
  'lighthouse castle cathedral temple mosque pagoda windmill barn cottage cabin tower bridge harbour ' +
  'market station library museum theater stadium factory greenhouse observatory treehouse tent igloo ' +
  'bicycle motorcycle car truck bus train tram ship sailboat canoe submarine airplane helicopter balloon ' +
  'rocket satellite telescope clock lantern candle teapot kettle guitar piano violin trumpet drum book ' +
  'map compass umbrella kite chair bench table bed sofa mirror window door staircase fountain statue ' +
  'tree oak pine palm cactus rose tulip sunflower mushroom waterfall volcano glacier island canyon ' +
  'mountain hill river lake pond meadow forest jungle desert beach cliff cave reef garden orchard vineyard'
).split(' ');
const ACTIONS = [
  '',
  '',
  '',
  'sleeping',
  'running',
  'dancing',
  'reading',
  'singing',
  'waiting',
  'resting',
  'flying',
  'swimming',
  'climbing',
  'playing',
  'hiding',
  'glowing',
  'burning',
  'floating',
];
const SETTINGS = (
  'in a snowy forest|on a rocky coast|in a busy city street|in a quiet village|on a mountain top|in a desert|' +
  'by a frozen lake|in a sunflower field|in a rainforest|on a sandy beach|in a foggy harbour|under the sea|' +
  'in outer space|on the moon|in a cozy kitchen|in a dusty attic|in a grand ballroom|in a school classroom|' +
  'in a hospital ward|in an old library|on a train platform|in a flower market|in a vineyard|in a cave|' +
  'on a farm|in a park|in a garden|on a bridge|on a rooftop|in a subway tunnel|in a castle courtyard|' +
  'on an island|in a canyon|in a meadow|beside a waterfall|in a swamp|on a glacier|in a bamboo grove|' +
  'in a workshop|in a laboratory|in a greenhouse|in a museum hall|at a carnival|at a night market|' +
  'in a snow globe|inside a teacup|on a chessboard|in a cloud kingdom|in a toy shop|in a bakery'
).split('|');
const LIGHTS = (
  'at dawn|at sunset|at night|at noon|in the rain|in the snow|in fog|under a full moon|under the stars|' +
  'in autumn|in spring|in winter|in summer|during a storm|in golden hour light|by candlelight|in neon light|' +
  'on a windy day|after the rain|at twilight'
).split('|');

/** murmur3's finaliser over (row, part): every part of every row independently spread. */
function mix(i: number, salt: number): number {
  let h = (Math.imul(i, 0x9e3779b1) ^ Math.imul(salt, 0x85ebca77)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 2 ** 32;
}
const pick = <T>(list: readonly T[], i: number, salt: number): T => list[Math.floor(mix(i, salt) * list.length)];

export function corpusPrompt(i: number): string {
  const quality = pick(QUALITIES, i, 1);
  const thing = pick(THINGS, i, 2);
  const action = pick(ACTIONS, i, 3);
  const article = /^[aeiou]/.test(quality) ? 'an' : 'a';
  return `${article} ${quality} ${thing}${action ? ` ${action}` : ''} ${pick(SETTINGS, i, 4)} ${pick(LIGHTS, i, 5)}`;
}

/** Rows from..to (inclusive) of the corpus. */
export const corpusPrompts = (from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, k) => corpusPrompt(from + k));

export const CORPUS_SHAPE = { qualities: QUALITIES.length, things: THINGS.length, actions: ACTIONS.length, settings: SETTINGS.length, lights: LIGHTS.length };
