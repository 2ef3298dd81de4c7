/**
 * Ordinary words the library's English list flags because they contain a listed word
 * (checked against obscenity 0.4.6). Any match inside one of them is ignored.
 */
export const LIBRARY_FALSE_POSITIVES: readonly string[] = [
  'cockpit', // cock
  'cumin', // cum
  'shiitake', // shit (the library only allows "shitake")
  'rapeseed', // rape
  'retardant', // retard, as in "fire retardant"
  'pissarro', // piss, the painter
];
