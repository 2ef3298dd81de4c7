import { themeOf, type Terrain, type Theme } from './lexicon';
import type { ScenePlan } from './plan';
import type { Subject } from './subjects';

const NUMBERS = ['', 'a', 'two', 'three', 'four', 'five'];

const plural = (label: string) => {
  const words = label.split(' ');
  const head = words.pop()!;
  const many = /(s|x|ch|sh)$/.test(head)
    ? `${head}es`
    : /[^aeiou]y$/.test(head)
      ? `${head.slice(0, -1)}ies`
      : /(man)$/.test(head)
        ? `${head.slice(0, -3)}men`
        : `${head}s`;
  return [...words, many].join(' ');
};

const article = (next: string) => (/^[aeiou]/.test(next) ? 'an' : 'a');

/** "a red automobile", "three cats". */
const nounPhrase = (s: Subject): string => {
  const label = s.count > 1 ? plural(s.match.label) : s.match.label;
  // "red apples" drawn from the red-apple icon are not "red red apples".
  const noun = s.colour && !label.split(' ').includes(s.colour.word) ? `${s.colour.word} ${label}` : label;
  return s.count > 1 ? `${NUMBERS[s.count] ?? s.count} ${noun}` : `${article(noun)} ${noun}`;
};

const TERRAIN_WORDS: Record<Terrain, string> = { hills: 'hills', mountains: 'mountains', waves: 'sea', dunes: 'dunes', city: 'city' };

/**
 * What the procedural model drew, in words: the subjects it drew (with their counts, colours and
 * relations), the setting the prompt's words brought, and the style. A word it could not draw is
 * not named. E.g. "a lighthouse on a cliff, sunset palette, watercolor".
 */
export const revisedPrompt = (subjects: readonly Subject[], plan: ScenePlan, style: string | undefined): string => {
  const parts: string[] = [];
  const targets = new Set(subjects.flatMap((s) => (typeof s.relation?.to === 'number' ? [s.relation.to] : [])));
  const placedOn = new Set<Theme>();
  subjects.forEach((s, i) => {
    // A subject another one is placed by is named in that one's phrase ("a cat on a table").
    if (targets.has(i) && !(typeof s.relation?.to === 'number')) return;
    let phrase = nounPhrase(s);
    const to = s.relation?.to;
    if (typeof to === 'number') phrase += ` ${s.relation!.kind} ${nounPhrase(subjects[to])}`;
    else if (typeof to === 'string') {
      const theme = themeOf(to);
      if (theme && plan.themes.includes(theme)) {
        placedOn.add(theme);
        phrase += ` on ${article(to)} ${to}`;
      }
    }
    parts.push(phrase);
  });
  const settings = plan.themes.filter((t) => t.label && !placedOn.has(t)).map((t) => t.label!);
  if (parts.length === 0 && settings.length === 0) {
    parts.push(plan.terrains.length > 0 ? plan.terrains.map((t) => TERRAIN_WORDS[t.kind]).join(' and ') : 'open sky');
  }
  parts.push(...settings);
  if (style) parts.push(style);
  return parts.join(', ');
};
