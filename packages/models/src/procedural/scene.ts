import { normalizePrompt } from '@promptpix/core';
import { createCanvas, type Canvas, type Layer } from './canvas';
import { hsl, mix, shift } from './color';
import {
  paintBirds,
  paintClouds,
  paintCreature,
  paintEmbers,
  paintFlowers,
  paintHaze,
  paintHorizonGlow,
  paintMoon,
  paintPlanets,
  paintRain,
  paintScatter,
  paintSky,
  paintSnow,
  paintStars,
  paintSun,
  paintWordShape,
  type Creature,
} from './motifs';
import { planScene, type ScenePlan } from './plan';
import { createRng, hash32 } from './prng';
import { paintLayer, paintTrees, type Ridge } from './terrain';
import { iconSets, type Icon } from './icons';
import { createSubjectMatcher } from './subject-match';
import { paintSubjects, placeSubjects } from './subject-paint';
import { subjectsOf, type Subject } from './subjects';

/** Where a scene's subjects come from: the prompt's nouns matched to icons, and the icons' markup. */
export interface SubjectSource {
  subjectsOf(prompt: string): Subject[];
  icon(name: string): Icon | undefined;
}

let installed: SubjectSource | undefined;

/** The installed icon sets and WordNet, opened on the first prompt (not at import). */
export const installedSubjects = (): SubjectSource => {
  if (!installed) {
    const sets = iconSets();
    const matcher = createSubjectMatcher(sets.names());
    installed = { subjectsOf: (prompt) => subjectsOf(prompt, matcher), icon: (name) => sets.get(name) };
  }
  return installed;
};

export interface SceneInput {
  readonly prompt: string;
  readonly seed: number;
  readonly width: number;
  readonly height: number;
  /** Leave the backdrop out (`background: 'transparent'`): see `backdropToOmit`. */
  readonly transparent?: boolean;
  /** Default: the installed icon sets (installedSubjects). */
  readonly subjects?: SubjectSource;
}

/**
 * What a transparent picture leaves out: the sky (gradient, glow, stars, haze, sun, moon, planets,
 * clouds, birds, snow and rain) always, and the
 * ground (terrain, its trees) when something else stands in the picture. A prompt of landscape
 * only ("snowy mountains") keeps its ground, so the picture is never empty.
 */
const backdropToOmit = (canvas: Canvas): ReadonlySet<Layer> => new Set<Layer>(canvas.has('subject') ? ['sky', 'ground'] : ['sky']);

/**
 * The picture for a prompt and seed, as an SVG document of exactly width×height. Every random
 * choice comes from one stream seeded by (seed, normalised prompt), so the same input always gives
 * the same markup, and prompts differing only in spacing (one cache key) give the same picture.
 * Layout is relative to the picture's size: another size of the same aspect is the same scene.
 */
export const composeScene = (input: SceneInput): { svg: string; plan: ScenePlan; subjects: Subject[] } => {
  const { width: w, height: h } = input;
  const rng = createRng(hash32(`${input.seed}\u0000${normalizePrompt(input.prompt)}`));
  // The prompt's subjects, each drawn from its icon; a subject without one is left out.
  const source = input.subjects ?? installedSubjects();
  const found = source.subjectsOf(input.prompt).map((subject) => ({ subject, icon: source.icon(subject.match.icon) }));
  const kept = found.flatMap((f, i) => (f.icon ? [i] : []));
  // Relations point at subjects by index: renumber them over the drawn ones.
  const subjects = kept.map((i): Subject => {
    const { relation, ...rest } = found[i].subject;
    if (typeof relation?.to !== 'number') return found[i].subject;
    const to = kept.indexOf(relation.to);
    return to < 0 ? rest : { ...rest, relation: { kind: relation.kind, to } };
  });
  const plan = planScene(input.prompt, rng, new Set(subjects.flatMap((s) => s.words)));
  const { palette, time, motifs } = plan;
  const canvas = createCanvas(w, h);
  const lr = rng.fork('layout');
  const open = plan.terrains.length === 0;
  const horizonY = open ? h : h * lr.range(0.42, 0.7);

  const sunlit = time !== 'night' && motifs.has('sun');
  canvas.within('sky', () => {
    paintSky(canvas, palette, horizonY);
    // A dusk sun brings its own glow; full-picture radial gradients cost ~30 ms each at 2048².
    if (time === 'dusk' && !sunlit) paintHorizonGlow(canvas, rng.fork('glow'), palette, horizonY);
    if (motifs.has('stars')) paintStars(canvas, rng.fork('stars'), horizonY);
  });
  // The sky's bodies and weather belong to the backdrop too: a transparent picture leaves them out.
  canvas.within('sky', () => {
    if (sunlit) paintSun(canvas, rng.fork('sun'), palette, time, open ? h * 0.8 : horizonY);
    if (motifs.has('moon') || (time === 'night' && motifs.has('sun'))) paintMoon(canvas, rng.fork('moon'), palette, open ? h * 0.8 : horizonY);
    if (motifs.has('planets')) paintPlanets(canvas, rng.fork('planets'), palette);
  });
  plan.wordShapes.forEach((shape, i) => {
    paintWordShape(canvas, rng.fork(`word ${i}`), shape, time, horizonY);
  });
  canvas.within('sky', () => {
    if (motifs.has('clouds')) paintClouds(canvas, rng.fork('clouds'), palette, time, horizonY, motifs.has('rain'));
    if (motifs.has('birds')) paintBirds(canvas, rng.fork('birds'), palette, horizonY);
  });

  // Terrain: far layer (the second terrain, if any), then two near layers of the first.
  const ridges: Ridge[] = [];
  if (!open) {
    const [near, far = near] = plan.terrains;
    const snowCaps = motifs.has('snow') || lr.chance(0.35);
    const layers = [
      { terrain: far, depth: 0, baseY: horizonY },
      { terrain: near, depth: 0.5, baseY: horizonY + (h - horizonY) * lr.range(0.22, 0.35) },
      { terrain: near, depth: 1, baseY: horizonY + (h - horizonY) * lr.range(0.5, 0.65) },
    ];
    const treeCounts = [lr.int(15, 30), lr.int(12, 24), lr.int(5, 10)];
    canvas.within('ground', () =>
      layers.forEach((layer, i) => {
        const colour = mix(palette.skyHorizon, layer.terrain.ground, 0.45 + 0.55 * layer.depth);
        const layerRng = rng.fork(`layer ${i}`);
        const { kind } = layer.terrain;
        const ridge = paintLayer(canvas, layerRng, {
          kind,
          depth: layer.depth,
          baseY: layer.baseY,
          colour: shift(colour, { l: -6 * layer.depth }),
          accent: palette.accent,
          time,
          snowCaps,
        });
        ridges.push(ridge);
        if (motifs.has('trees') && (kind === 'hills' || kind === 'mountains' || kind === 'dunes')) {
          const treeColour = mix(hsl(135, 45, 22), palette.ground, 0.35 + 0.3 * (1 - layer.depth));
          paintTrees(canvas, layerRng.fork('trees'), ridge, shift(treeColour, { l: time === 'night' ? -12 : 0 }), treeCounts[i]);
        }
        if (i === 0) canvas.within('sky', () => paintHaze(canvas, palette, horizonY - (h - horizonY) * 0.3, horizonY + (h - horizonY) * 0.3, 0.35));
      }),
    );
  }
  const nearest = ridges[ridges.length - 1];
  if (motifs.has('flowers')) paintFlowers(canvas, rng.fork('flowers'), nearest, palette);

  if (subjects.length > 0) {
    const icons = new Map(kept.map((i, k) => [k, found[i].icon!] as const));
    const placements = placeSubjects(subjects, rng.fork('subjects'), { width: w, height: h, ridges });
    paintSubjects(canvas, subjects, placements, icons, palette, time);
  }

  // The old drawn creatures stand in only when no subject was drawn from an icon.
  const creatures = subjects.length > 0 ? [] : (['cat', 'dog', 'robot'] as const).filter((c): c is Creature => motifs.has(c));
  const cr = rng.fork('creatures');
  creatures.forEach((kind, i) => {
    const slot = (i + 0.5) / creatures.length;
    const x = w * (0.2 + 0.6 * slot + cr.range(-0.08, 0.08));
    const size = Math.min(w, h) * cr.range(0.24, 0.36);
    const ground = nearest ? nearest.yAt(x) + size * cr.range(0.05, 0.2) : h * 0.75;
    paintCreature(canvas, kind, x, Math.min(ground, h - size * 0.05), size, palette, time);
  });

  // Weather belongs to the backdrop: falling snow over nothing is no picture.
  canvas.within('sky', () => {
    if (motifs.has('snow')) paintSnow(canvas, rng.fork('snow'));
    if (motifs.has('rain')) paintRain(canvas, rng.fork('rain'));
  });
  if (motifs.has('embers')) paintEmbers(canvas, rng.fork('embers'), palette);
  plan.wordShapes.forEach((shape, i) => {
    if (shape.kind === 'scatter') paintScatter(canvas, rng.fork(`scatter ${i}`), shape, time);
  });

  return { svg: canvas.toSvg(input.transparent ? backdropToOmit(canvas) : undefined), plan, subjects };
};
