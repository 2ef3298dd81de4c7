/**
 * Themes unsuitable for children, blocked on top of the all-ages rules for the kids and bigkids
 * age buckets. Matched as whole words after the same normalisation as the library's word list
 * (so "kill" blocks "k1ll" but not "skill" or "killer whale"); inflections are listed one by one.
 *
 * Left out on purpose, because an innocent meaning dominates in children's pictures:
 * sword, bow, knife, bomb (bath bomb), shoot (bamboo shoot, photo shoot), killer (killer whale),
 * dead (dead leaves), skull (pirate flags), weed (garden), pot, coke, crack, beer (root beer),
 * bikini, kiss, horror. Known over-blocking that was accepted:
 * "blood orange", "water gun", "naked mole rat".
 */
export const KIDS_TERMS: readonly string[] = [
  // gore and violence
  'blood', 'bloody', 'bloodied', 'bloodbath', 'bloodshed', 'bleeding',
  'gore', 'gory', 'gruesome', 'corpse', 'corpses', 'dead body', 'dead bodies',
  'decapitated', 'decapitation', 'beheaded', 'beheading', 'dismembered', 'mutilated', 'mutilation',
  'torture', 'tortured', 'torturing',
  'kill', 'kills', 'killed', 'killing', 'murder', 'murders', 'murdered', 'murderer',
  'massacre', 'slaughter', 'slaughtered', 'stab', 'stabbed', 'stabbing', 'strangled',
  'violence', 'violent', 'suicide', 'self-harm', 'self harm',
  // weapons
  'gun', 'guns', 'handgun', 'gunfire', 'gunshot', 'pistol', 'pistols', 'revolver', 'rifle', 'rifles',
  'shotgun', 'sniper', 'firearm', 'firearms', 'ammunition', 'ammo', 'grenade', 'grenades', 'explosives',
  // drugs, alcohol and tobacco
  'drug', 'drugs', 'cocaine', 'heroin', 'meth', 'marijuana', 'cannabis', 'narcotics', 'overdose',
  'alcohol', 'alcoholic', 'booze', 'drunk', 'wine', 'vodka', 'whiskey', 'whisky', 'tequila',
  'cigarette', 'cigarettes', 'cigar', 'cigars', 'tobacco', 'vape', 'vaping',
  // sexual content and nudity (the library's list already covers the explicit words)
  'nude', 'nudes', 'nudity', 'naked', 'topless', 'sexy', 'seductive', 'sensual', 'erotic', 'lingerie',
  'stripper', 'striptease',
];
