/**
 * The built-in model's subject evaluation set: prompts with a concrete main subject, as people
 * type them (animals, objects, vehicles, buildings, food, people at work, and paraphrases that
 * name the subject by another word). `accept` lists what counts as that subject drawn: the words
 * a person would accept in the model's `revisedPrompt` for it (a puppy drawn as a dog is the
 * subject; a "car" drawn as a police car is too). Written for issue #33; not tuned to the icons.
 */
export interface SubjectCase {
  readonly prompt: string;
  readonly accept: readonly string[];
  readonly kind: 'animal' | 'object' | 'vehicle' | 'building' | 'food' | 'work' | 'paraphrase';
}

const c = (kind: SubjectCase['kind'], prompt: string, ...accept: string[]): SubjectCase => ({ prompt, accept, kind });

export const SUBJECT_CASES: readonly SubjectCase[] = [
  // Animals
  c('animal', 'a cat sleeping on a windowsill', 'cat'),
  c('animal', 'a dog running on the beach', 'dog'),
  c('animal', 'an elephant in the savanna at sunset', 'elephant'),
  c('animal', 'a fox in a snowy forest', 'fox'),
  c('animal', 'an owl on a branch at night', 'owl'),
  c('animal', 'a horse galloping across a field', 'horse'),
  c('animal', 'a penguin on an iceberg', 'penguin'),
  c('animal', 'a whale swimming in the ocean', 'whale'),
  c('animal', 'a lion resting in the grass', 'lion'),
  c('animal', 'a turtle underwater near a coral reef', 'turtle'),
  c('animal', 'two rabbits in a meadow', 'rabbit'),
  c('animal', 'a bear by a river in the mountains', 'bear'),
  c('animal', 'an octopus in the deep sea', 'octopus'),
  c('animal', 'a frog on a lily pad in the rain', 'frog'),
  c('animal', 'a butterfly over flowers in spring', 'butterfly'),
  c('animal', 'a cow grazing in a green pasture', 'cow'),
  c('animal', 'a pig in the mud on a farm', 'pig'),
  c('animal', 'a giraffe under a tree', 'giraffe'),
  c('animal', 'three ducks on a lake', 'duck'),
  c('animal', 'a shark in dark water', 'shark'),
  c('animal', 'a unicorn in a magical forest', 'unicorn'),
  c('animal', 'a dragon flying over a castle', 'dragon'),
  // Objects
  c('object', 'a red umbrella in the rain', 'umbrella'),
  c('object', 'an old guitar leaning on a wall', 'guitar'),
  c('object', 'a camera on a wooden table', 'camera'),
  c('object', 'a laptop on a desk at night', 'laptop'),
  c('object', 'a hot air balloon over the hills', 'balloon'),
  c('object', 'a golden crown on a pillow', 'crown'),
  c('object', 'a kite flying in the sky', 'kite'),
  c('object', 'an hourglass in the desert', 'hourglass'),
  c('object', 'a violin in a concert hall', 'violin'),
  c('object', 'an old key on the floor', 'key'),
  c('object', 'a telescope under the stars', 'telescope'),
  c('object', 'a lantern in the dark woods', 'lantern'),
  c('object', 'a globe on a shelf', 'globe'),
  c('object', 'a trophy on a podium', 'trophy'),
  c('object', 'a candle in a dark room', 'candle'),
  // Vehicles
  c('vehicle', 'a red car on a mountain road', 'automobile', 'car'),
  c('vehicle', 'a bicycle leaning against a fence', 'bicycle'),
  c('vehicle', 'a sailboat on a calm lake at dawn', 'sailboat', 'boat'),
  c('vehicle', 'a steam train crossing a bridge', 'locomotive', 'train'),
  c('vehicle', 'an airplane above the clouds', 'airplane'),
  c('vehicle', 'a rocket launching into space', 'rocket'),
  c('vehicle', 'a helicopter over the city at night', 'helicopter'),
  c('vehicle', 'a yellow school bus on a street', 'bus'),
  c('vehicle', 'a motorcycle on a desert highway', 'motorcycle'),
  c('vehicle', 'a tractor in a wheat field', 'tractor'),
  c('vehicle', 'a police car in the rain', 'police car'),
  c('vehicle', 'a fire engine at night', 'fire engine'),
  c('vehicle', 'a ship in a storm', 'ship'),
  c('vehicle', 'a canoe on a river in autumn', 'canoe'),
  c('vehicle', 'a scooter in a narrow alley', 'scooter'),
  // Buildings
  c('building', 'a lighthouse on a cliff at sunset', 'lighthouse'),
  c('building', 'a castle on a hill', 'castle'),
  c('building', 'a small house in the woods', 'house'),
  c('building', 'a church in a village at dawn', 'church'),
  c('building', 'a tent under the stars', 'tent'),
  c('building', 'a windmill in a tulip field', 'windmill'),
  c('building', 'a hospital on a rainy day', 'hospital'),
  c('building', 'a school in the snow', 'school'),
  c('building', 'a stadium at night', 'stadium'),
  c('building', 'a hut on a tropical island', 'hut'),
  c('building', 'a mosque at sunset', 'mosque'),
  c('building', 'a factory with smoking chimneys', 'factory'),
  // Food
  c('food', 'a slice of pizza on a plate', 'pizza'),
  c('food', 'a hamburger with fries', 'hamburger'),
  c('food', 'a bowl of ramen', 'bowl'),
  c('food', 'a birthday cake with candles', 'cake', 'shortcake'),
  c('food', 'a cup of coffee on a rainy morning', 'beverage', 'coffee'),
  c('food', 'a basket of red apples', 'apple'),
  c('food', 'a croissant on a table', 'croissant'),
  c('food', 'sushi on a wooden board', 'sushi'),
  c('food', 'a watermelon on the beach', 'watermelon'),
  c('food', 'a taco on a plate', 'taco'),
  c('food', 'an ice cream cone in summer', 'ice cream'),
  c('food', 'a loaf of bread on a table', 'bread'),
  c('food', 'a pineapple on the sand', 'pineapple'),
  c('food', 'a bunch of grapes', 'grapes'),
  c('food', 'a carrot in the garden', 'carrot'),
  // People at work
  c('work', 'a chef cooking in a kitchen', 'cook'),
  c('work', 'a firefighter in front of a burning house', 'firefighter'),
  c('work', 'a farmer in a field at sunrise', 'farmer'),
  c('work', 'a doctor in a hospital', 'health worker'),
  c('work', 'a teacher in a classroom', 'teacher'),
  c('work', 'an astronaut on the moon', 'astronaut'),
  c('work', 'a scientist in a laboratory', 'scientist'),
  c('work', 'a pilot next to an airplane', 'pilot'),
  c('work', 'a mechanic fixing a car', 'mechanic'),
  c('work', 'a police officer on a street', 'police officer'),
  c('work', 'a painter at an easel', 'artist'),
  c('work', 'a programmer at a computer at night', 'technologist'),
  c('work', 'a construction worker on a building site', 'construction worker'),
  c('work', 'a singer on a stage', 'singer'),
  c('work', 'a judge in a courtroom', 'judge'),
  // Paraphrases: the subject by another word
  c('paraphrase', 'a puppy playing in the snow', 'dog'),
  c('paraphrase', 'an automobile parked by the sea', 'automobile'),
  c('paraphrase', 'a beacon tower on the coast', 'lighthouse'),
  c('paraphrase', 'a kitten on a cushion', 'cat'),
  c('paraphrase', 'a hound in the woods', 'dog'),
  c('paraphrase', 'a stallion on a beach', 'horse'),
  c('paraphrase', 'a fortress on a mountain', 'castle'),
  c('paraphrase', 'a cottage by a lake', 'house'),
  c('paraphrase', 'a spaceship among the planets', 'rocket'),
  c('paraphrase', 'a cook in a restaurant kitchen', 'cook'),
  c('paraphrase', 'a physician at work', 'health worker'),
  c('paraphrase', 'a jet flying over the ocean', 'airplane'),
  c('paraphrase', 'a pup asleep by the fire', 'dog'),
  c('paraphrase', 'a tomcat on a roof at night', 'cat'),
  c('paraphrase', 'a motorbike in the city', 'motorcycle'),
  c('paraphrase', 'a pooch wearing a scarf', 'dog'),
];

/** Whether `revisedPrompt` names the case's main subject: one of `accept` in its first phrase. */
export const mainSubjectDrawn = (revisedPrompt: string | undefined, accept: readonly string[]): boolean => {
  const first = (revisedPrompt ?? '').split(',')[0];
  return accept.some((word) => new RegExp(`\\b${word}(e?s)?\\b`).test(first));
};
