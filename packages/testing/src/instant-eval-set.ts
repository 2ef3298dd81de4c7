/**
 * The project's own evaluation set for instant mode's matching by meaning: library prompts
 * ("subjects"), paraphrases a caller might type for each (sharing few content words with it),
 * and unrelated queries that should find nothing. The bench's `meaning` phase and the matcher's
 * floor test both read it. Written by hand; paraphrases were written before the matcher was tuned.
 */
export interface EvalSubject {
  prompt: string;
  paraphrases: string[];
}

/**
 * `tuning`: the subjects the matcher's expansion was tuned on (their misses were read).
 * `held-out`: written before the next round of tuning and never read while tuning (only their
 * totals): recall on them is the honest figure for prompts the matcher has not been fitted to.
 */
export type EvalSplit = 'tuning' | 'held-out';

const TUNING_SUBJECTS: EvalSubject[] = [
  { prompt: 'a lighthouse on a rocky coast at sunset', paraphrases: ['a beacon tower on the cliffs in the evening', 'lighthouse by the shore at dusk'] },
  { prompt: 'a red fox in a snowy forest', paraphrases: ['a fox among wintry trees', 'a vixen in the woods in the snow'] },
  { prompt: 'a cat sleeping on a sunny windowsill', paraphrases: ['a kitten napping in the sun', 'a kitty dozing by the window'] },
  { prompt: 'a friendly robot waving hello', paraphrases: ['a cheerful android greeting someone', 'a smiling automaton saying hi'] },
  { prompt: 'a city skyline at night in the rain', paraphrases: ['skyscrapers after dark during a downpour', 'downtown towers on a wet evening'] },
  { prompt: 'mountains above the clouds at dawn', paraphrases: ['peaks over the mist at sunrise', 'a summit above a sea of fog in the early morning'] },
  { prompt: 'a sailing boat on a calm ocean', paraphrases: ['a sailboat on a still sea', 'a yacht drifting on quiet water'] },
  { prompt: 'a desert with dunes under a starry sky', paraphrases: ['sand hills beneath the stars', 'the sahara at night'] },
  { prompt: 'a dog playing in a field of flowers', paraphrases: ['a puppy in a meadow', 'a hound running through wildflowers'] },
  { prompt: 'a volcano erupting at dusk', paraphrases: ['lava bursting from a crater in the evening', 'an eruption of magma at twilight'] },
  {
    prompt: 'a cozy cabin in a pine forest in winter',
    paraphrases: ['a snug hut among the evergreens in the cold season', 'a log cottage in the snowy woods'],
  },
  { prompt: 'planets and a ringed moon in deep space', paraphrases: ['outer space', 'the solar system and its satellites among the galaxies'] },
  { prompt: 'a tropical beach with palm trees', paraphrases: ['a sandy shore with coconut palms', 'an island seaside in the tropics'] },
  { prompt: 'autumn leaves in a quiet park', paraphrases: ['fall foliage in a peaceful garden', 'orange maple leaves on a lawn'] },
  { prompt: 'a hot air balloon over green hills', paraphrases: ['a dirigible floating above the countryside', 'a balloon drifting over grassy slopes'] },
  { prompt: 'a waterfall in a lush jungle', paraphrases: ['a cascade in the rainforest', 'falling water among tropical vegetation'] },
  { prompt: 'a team meeting in a bright modern office', paraphrases: ['business meeting', 'colleagues at a conference in the workplace'] },
  { prompt: 'a bowl of fresh fruit on a wooden table', paraphrases: ['apples and bananas in a dish', 'a basket of pears and grapes on the counter'] },
  { prompt: 'a snowy village at christmas', paraphrases: ['a hamlet in the snow during the holidays', 'a town covered in snow on xmas eve'] },
  { prompt: 'a bicycle leaning against a brick wall', paraphrases: ['a bike resting by a wall', 'a cycle propped on masonry'] },
  { prompt: 'a steam locomotive crossing a bridge', paraphrases: ['an old train on a viaduct', 'a railway engine going over a river crossing'] },
  { prompt: 'a horse galloping on a beach', paraphrases: ['a stallion running along the seashore', 'a mare racing across the sand'] },
  { prompt: 'an owl perched on a branch at night', paraphrases: ['a nocturnal bird sitting on a bough', 'a barn owl on a limb in the dark'] },
  { prompt: 'a chef cooking in a busy kitchen', paraphrases: ['a cook preparing food at the stove', 'a restaurant kitchen with a cook at work'] },
  { prompt: 'a child reading a book under a tree', paraphrases: ['a kid with a novel beneath an oak', 'a young boy studying a storybook in the shade'] },
  { prompt: 'a medieval castle on a hill', paraphrases: ['a fortress on a mound', 'an ancient stronghold atop a ridge'] },
  { prompt: 'a cup of coffee on a cafe table', paraphrases: ['an espresso in a coffeehouse', 'a mug of latte at a bistro'] },
  { prompt: 'a violin resting on sheet music', paraphrases: ['a fiddle on a musical score', 'a string instrument lying on a page of notes'] },
  { prompt: 'a rocket launching into the sky', paraphrases: ['a spacecraft lifting off', 'a missile blasting off toward the heavens'] },
  { prompt: 'a farmer harvesting wheat in a field', paraphrases: ['a peasant reaping grain', 'a tractor gathering the crop on a farm'] },
  { prompt: 'a surfer riding a big wave', paraphrases: ['someone on a surfboard in the breakers', 'a man surfing a huge swell'] },
  { prompt: 'a bakery window full of bread and pastries', paraphrases: ['loaves and croissants in a shop display', 'a baker showing cakes and buns'] },
  { prompt: 'an old man playing chess in a park', paraphrases: ['an elderly gentleman at a chessboard outdoors', 'a grandfather moving a pawn on a bench'] },
  { prompt: 'a jellyfish glowing in dark water', paraphrases: ['a luminous medusa in the deep sea', 'a glowing sea creature in the ocean depths'] },
  { prompt: 'a vintage car on an empty road', paraphrases: ['an antique automobile on a deserted highway', 'a classic vehicle on a lonely street'] },
  { prompt: 'a butterfly on a purple flower', paraphrases: ['a moth resting on a violet blossom', 'a monarch on a lavender bloom'] },
  { prompt: 'a scientist looking through a microscope', paraphrases: ['a researcher in a laboratory examining a sample', 'a biologist with lab equipment'] },
  { prompt: 'a pirate ship in a storm', paraphrases: ['a buccaneer vessel in a tempest', 'a galleon in a gale with big waves'] },
  { prompt: 'a bowl of ramen with chopsticks', paraphrases: ['a dish of noodle soup', 'japanese noodles in broth'] },
  { prompt: 'an elephant walking across the savanna', paraphrases: ['a pachyderm on the african plains', 'a tusker strolling through the grassland'] },
  { prompt: 'a girl flying a kite on a windy day', paraphrases: ['a young woman with a kite in the breeze', 'a lass holding a kite string in a gust'] },
  { prompt: 'a lion resting in tall grass', paraphrases: ['a big cat lying in the savannah', 'a lioness lounging among the reeds'] },
  { prompt: 'a library with tall bookshelves', paraphrases: ['a reading room full of books', 'shelves of volumes in a study'] },
  { prompt: 'a firefighter spraying water on a burning house', paraphrases: ['a fireman putting out a blaze', 'a hose dousing flames at a building'] },
  { prompt: 'a snowman with a carrot nose', paraphrases: ['a figure made of snow in a yard', 'a frosty man built by children in winter'] },
  { prompt: 'a penguin colony on the ice', paraphrases: ['flightless seabirds on a glacier', 'penguins in antarctica'] },
  { prompt: 'a bridge over a river at twilight', paraphrases: ['a span across a stream at dusk', 'an arch crossing the water in the evening'] },
  { prompt: 'a guitarist performing on stage', paraphrases: ['a musician playing a guitar at a concert', 'a rock star with an electric guitar'] },
  { prompt: 'a whale breaching the ocean surface', paraphrases: ['a humpback jumping out of the sea', 'a leviathan leaping from the waves'] },
  { prompt: 'a birthday cake with candles', paraphrases: ['a gateau for a celebration with tapers', 'a party dessert with lit candles'] },
  { prompt: 'a garden of red roses', paraphrases: ['a rosebush in bloom', 'crimson blossoms in a flower bed'] },
  { prompt: 'a knight in shining armor', paraphrases: ['a soldier in a suit of mail', 'a warrior in a metal helmet and breastplate'] },
  {
    prompt: 'a doctor talking with a patient in a hospital',
    paraphrases: ['a physician with a sick person at the clinic', 'a medic consulting someone in a ward'],
  },
  { prompt: 'a wolf howling at the full moon', paraphrases: ['a coyote baying at night', 'a canine crying out under the moonlight'] },
  { prompt: 'a tractor plowing a muddy field', paraphrases: ['a farm vehicle tilling the soil', 'an agricultural machine working the land'] },
];

const HELD_OUT_SUBJECTS: EvalSubject[] = [
  { prompt: 'a fisherman casting a net from a small boat', paraphrases: ['an angler throwing a net off a dinghy', 'a man fishing from a rowboat'] },
  { prompt: 'a hummingbird drinking nectar from a flower', paraphrases: ['a tiny bird feeding on a blossom', 'a small bird hovering at a bloom'] },
  { prompt: 'paper lanterns floating in the night sky', paraphrases: ['glowing sky lamps drifting after dark', 'lights released into the air at a festival'] },
  { prompt: 'a ballerina dancing on a stage', paraphrases: ['a ballet dancer performing in a theater', 'a woman in a tutu doing a pirouette'] },
  { prompt: 'a tiger stalking its prey', paraphrases: ['a striped big cat hunting', 'a bengal tiger creeping up on a deer'] },
  { prompt: 'a stack of pancakes with syrup', paraphrases: ['flapjacks drizzled with maple', 'a breakfast plate of hotcakes'] },
  { prompt: 'a sunflower field in summer', paraphrases: ['a meadow of yellow blooms in july', 'rows of tall golden flowers on a hot day'] },
  { prompt: 'a submarine deep under the sea', paraphrases: ['an underwater vessel in the ocean depths', 'a u-boat beneath the waves'] },
  { prompt: 'a carpenter sawing a plank in a workshop', paraphrases: ['a woodworker cutting lumber', 'a joiner at his workbench with a saw'] },
  { prompt: 'a frog sitting on a lily pad', paraphrases: ['a toad on a leaf in a pond', 'an amphibian resting on a water lily'] },
  { prompt: 'a train station platform crowded with travelers', paraphrases: ['commuters waiting at a railway station', 'passengers on a busy platform'] },
  { prompt: 'an astronaut floating outside a space station', paraphrases: ['a spaceman on a spacewalk', 'a cosmonaut drifting in orbit'] },
  {
    prompt: 'a grandmother knitting a scarf by the fireplace',
    paraphrases: ['an old woman with yarn and needles near the hearth', 'granny making a woolen muffler beside the fire'],
  },
  { prompt: 'a squirrel eating a nut on a fence', paraphrases: ['a chipmunk nibbling an acorn', 'a rodent with a hazelnut on a railing'] },
  {
    prompt: 'a hiker on a mountain trail with a backpack',
    paraphrases: ['a trekker on a path in the hills carrying a rucksack', 'someone hiking up a steep track'],
  },
  { prompt: 'a bowl of tomato soup with bread', paraphrases: ['a dish of red broth and a roll', 'a hot bisque served with a baguette'] },
  { prompt: 'a clock tower in an old town square', paraphrases: ['a belfry with a timepiece in the plaza', 'an ancient steeple with a clock face downtown'] },
  { prompt: 'a potter shaping clay on a wheel', paraphrases: ['a ceramicist making a vase', 'hands molding pottery on a turntable'] },
  { prompt: 'a parrot with colorful feathers', paraphrases: ['a bright macaw', 'a tropical bird with rainbow plumage'] },
  { prompt: 'a couple dancing the tango', paraphrases: ['two partners doing a ballroom dance', 'a man and a woman waltzing'] },
  { prompt: 'a swimmer diving into a pool', paraphrases: ['someone jumping into the water at the swimming baths', 'an athlete plunging off a diving board'] },
  { prompt: 'a cherry blossom tree in spring', paraphrases: ['pink sakura in bloom', 'a flowering tree in april'] },
  { prompt: 'a cowboy with a lasso at a rodeo', paraphrases: ['a rancher roping cattle', 'a wrangler in a stetson throwing a rope'] },
  { prompt: 'a crowded street market in asia', paraphrases: ['a busy bazaar with vendors', 'shoppers at an open-air marketplace'] },
  { prompt: 'a soldier saluting a flag', paraphrases: ['a serviceman honoring the national banner', 'a trooper standing to attention before the colors'] },
  { prompt: 'a painter at an easel in a studio', paraphrases: ['an artist working on a canvas', 'a man with brushes and a palette in his atelier'] },
  { prompt: 'a snail crawling on a leaf', paraphrases: ['a slug on foliage', 'a slow mollusk moving across greenery'] },
  { prompt: 'a pizza fresh out of the oven', paraphrases: ['a hot pie with melted cheese', 'a margherita just baked'] },
  { prompt: 'an eagle soaring over a canyon', paraphrases: ['a bird of prey gliding above a gorge', 'a hawk circling over the ravine'] },
  {
    prompt: 'students listening to a teacher in a classroom',
    paraphrases: ['pupils at their desks during a lesson', 'a schoolmaster giving a lecture to children'],
  },
];

export const EVAL_SUBJECTS: Array<EvalSubject & { split: EvalSplit }> = [
  ...TUNING_SUBJECTS.map((s) => ({ ...s, split: 'tuning' as const })),
  ...HELD_OUT_SUBJECTS.map((s) => ({ ...s, split: 'held-out' as const })),
];

const TUNING_UNRELATED: string[] = [
  'tax return spreadsheet',
  'a broken smartphone screen',
  'quarterly earnings report',
  'a dentist drilling a tooth',
  'a parking ticket',
  'password reset email',
  'a plumber fixing a sink',
  'stock market crash graph',
  'an insurance claim form',
  'a vacuum cleaner on a carpet',
  'a syringe and a vaccine vial',
  'a traffic jam on a motorway',
  'a wedding ring on a cushion',
  'a printer jammed with paper',
  'a pile of laundry',
  'a courtroom with a judge',
  'a voting ballot box',
  'a toothbrush and toothpaste',
  'a shopping cart in a supermarket',
  'a padlock on a gate',
  'a calculator and a pencil',
  'a barcode scanner at a checkout',
  'a hair dryer',
  'an electricity bill',
  'a keyboard and a mouse',
  'a bank vault door',
  'a pair of sneakers',
  'a vending machine',
  'a microwave oven',
  'a ceiling fan',
];

const HELD_OUT_UNRELATED: string[] = [
  'a usb charging cable',
  'a mortgage contract',
  'a broken zipper',
  'a software bug report',
  'a filing cabinet',
  'a smoke detector on the ceiling',
  'a pile of receipts',
  'a recycling bin',
  'a thermostat',
  'a light switch',
  'a contact lens case',
  'a stapler',
  'a bottle of cough syrup',
  'an extension cord',
  'a login screen',
];

/** Queries about things none of the subjects shows: each should answer 404. */
export const UNRELATED_QUERIES: Array<{ query: string; split: EvalSplit }> = [
  ...TUNING_UNRELATED.map((query) => ({ query, split: 'tuning' as const })),
  ...HELD_OUT_UNRELATED.map((query) => ({ query, split: 'held-out' as const })),
];
