import { hsl, mix, shift, sweep, type Hsl } from './color';
import { colourHueOf, themeOf, themes, wordsOf, type Motif, type Terrain, type Theme, type TimeOfDay } from './lexicon';
import { hash32, type Rng } from './prng';

export interface Palette {
  readonly skyTop: Hsl;
  readonly skyMid: Hsl;
  readonly skyHorizon: Hsl;
  /** The nearest terrain's colour. */
  readonly ground: Hsl;
  readonly accent: Hsl;
  /** Sun or moon. */
  readonly light: Hsl;
}

export const wordShapeKinds = ['orbs', 'shard', 'stripes', 'ring', 'arcs', 'scatter'] as const;
export type WordShapeKind = (typeof wordShapeKinds)[number];

/** A word the lexicon does not know still leaves its own mark: a kind of shape and a hue. */
export interface WordShape {
  readonly word: string;
  readonly kind: WordShapeKind;
  readonly hue: number;
}

export interface TerrainPlan {
  readonly kind: Terrain;
  readonly ground: Hsl;
}

/** Everything a picture will contain, decided before any drawing. */
export interface ScenePlan {
  readonly time: TimeOfDay;
  readonly palette: Palette;
  /** Nearest first; at most two. Empty: open sky. */
  readonly terrains: readonly TerrainPlan[];
  readonly motifs: ReadonlySet<Motif>;
  readonly wordShapes: readonly WordShape[];
  /** The themes the prompt's words brought, in priority order. */
  readonly themes: readonly Theme[];
}

const maxWordShapes = 6;
const nearness: Record<Terrain, number> = { mountains: 1, city: 2, hills: 3, dunes: 4, waves: 5 };

const jitter = (rng: Rng, c: Hsl, dh: number, ds: number, dl: number) => shift(c, { h: rng.range(-dh, dh), s: rng.range(-ds, ds), l: rng.range(-dl, dl) });

/** Pulls a colour's hue towards `hue`, keeping its saturation and lightness. */
const tint = (c: Hsl, hue: number | undefined, t: number) => (hue === undefined ? c : mix(c, hsl(hue, c.s, c.l), t));

const defaultSky = (rng: Rng, time: TimeOfDay, hue: number): [Hsl, Hsl] => {
  switch (time) {
    case 'day':
      return [hsl(hue, rng.range(45, 70), rng.range(40, 56)), hsl(hue + rng.range(-30, 30), rng.range(40, 60), rng.range(80, 90))];
    case 'dusk':
      return [hsl(hue, rng.range(38, 55), rng.range(20, 30)), hsl(hue + 150 + rng.range(-25, 25), rng.range(78, 95), rng.range(56, 66))];
    case 'night':
      return [hsl(hue, rng.range(50, 65), rng.range(5, 10)), hsl(hue + rng.range(-20, 20), rng.range(38, 55), rng.range(18, 28))];
  }
};

const groundAt = (c: Hsl, time: TimeOfDay, skyTop: Hsl): Hsl => {
  switch (time) {
    case 'day':
      return c;
    case 'dusk':
      return mix(hsl(c.h, c.s * 0.8, c.l * 0.6), hsl(skyTop.h, c.s * 0.8, c.l * 0.6), 0.3);
    case 'night':
      return mix(hsl(c.h, c.s * 0.6, c.l * 0.35), hsl(skyTop.h, c.s * 0.6, c.l * 0.35), 0.45);
  }
};

/** `drawn`: words already drawn as subjects (./subjects.ts), which leave no shape of their own. */
export const planScene = (prompt: string, rng: Rng, drawn: ReadonlySet<string> = new Set()): ScenePlan => {
  const matched: Theme[] = [];
  const colourHues: number[] = [];
  const free: string[] = [];
  for (const word of wordsOf(prompt)) {
    const theme = themeOf(word);
    const colourHue = colourHueOf(word);
    if (theme) {
      if (!matched.includes(theme)) matched.push(theme);
    } else if (colourHue !== undefined) colourHues.push(colourHue);
    else if (!free.includes(word) && !drawn.has(word) && free.length < maxWordShapes) free.push(word);
  }
  const byPriority = themes.filter((t) => matched.includes(t));
  const pr = rng.fork('palette');

  const skyTheme = byPriority.find((t) => t.sky);
  const roll = pr.next();
  const time: TimeOfDay = byPriority.find((t) => t.time)?.time ?? (roll < 0.6 ? 'day' : roll < 0.85 ? 'dusk' : 'night');
  const colourHue = colourHues[0];
  const baseHue = colourHue ?? (skyTheme?.sky ? skyTheme.sky[0].h + pr.range(-30, 30) : pr.range(0, 360));
  let [top, horizon] = defaultSky(pr, time, baseHue);
  if (skyTheme?.sky) {
    // A theme that leaves the time of day open keeps its own sky by day and only tints dusk or night.
    const weight = skyTheme.time || time === 'day' ? 1 : 0.45;
    top = mix(top, jitter(pr, skyTheme.sky[0], 18, 10, 7), weight);
    horizon = mix(horizon, jitter(pr, skyTheme.sky[1], 18, 10, 7), weight);
  }
  const skyTop = tint(top, colourHue, 0.3);
  const skyHorizon = tint(horizon, colourHue, 0.25);
  const skyMid = shift(sweep(skyTop, skyHorizon, 0.55), { h: pr.range(-35, 35), l: pr.range(-6, 6) });

  const defaultGround = hsl(baseHue + pr.pick([180, 40, -40, 120]), pr.range(30, 60), pr.range(28, 45));
  const groundOf = (theme: Theme | undefined) =>
    groundAt(tint(theme?.ground ? jitter(pr, theme.ground, 12, 8, 5) : defaultGround, colourHue, 0.4), time, skyTop);

  const accentTheme = matched.find((t) => t.accent);
  const accent = accentTheme?.accent
    ? jitter(pr, accentTheme.accent, 8, 0, 4)
    : colourHue !== undefined
      ? hsl(colourHue, 85, 58)
      : hsl(baseHue + 180 + pr.range(-30, 30), 75, 60);
  const light = time === 'day' ? hsl(50, 100, 90) : time === 'dusk' ? hsl(38, 100, 70) : hsl(48, 35, 90);

  const mr = rng.fork('motifs');
  // Each terrain takes its colour from the word that brought it ("forest by the ocean": blue water).
  let terrains: TerrainPlan[] = [];
  for (const theme of matched) {
    const kind = theme.terrain;
    if (kind && kind !== 'none' && !terrains.some((t) => t.kind === kind)) terrains.push({ kind, ground: groundOf(theme) });
  }
  const openSky = terrains.length === 0 && matched.some((t) => t.terrain === 'none');
  if (terrains.length === 0 && !openSky) {
    const kind = mr.pick<Terrain>(['hills', 'hills', 'mountains', 'mountains', 'dunes', 'waves']);
    terrains = [{ kind, ground: groundOf(matched.find((t) => t.ground)) }];
  }
  // Of two terrains, the backdrop (mountains, skyline) goes far and water comes near.
  terrains = terrains.slice(0, 2).sort((a, b) => nearness[b.kind] - nearness[a.kind]);
  const ground = terrains[0]?.ground ?? groundOf(matched.find((t) => t.ground));

  const motifs = new Set(matched.flatMap((t) => t.motifs ?? []));
  if (motifs.has('rain')) motifs.delete('sun');
  else if (!motifs.has('sun') && !motifs.has('moon') && mr.chance(time === 'night' ? 0.75 : 0.6)) motifs.add(time === 'night' ? 'moon' : 'sun');
  if (time === 'night') motifs.add('stars');
  if (time === 'day' && mr.chance(0.45)) motifs.add('clouds');
  if (time !== 'night' && mr.chance(0.2)) motifs.add('birds');

  const wordShapes = free.map((word): WordShape => {
    const h = hash32(word);
    return { word, kind: wordShapeKinds[h % wordShapeKinds.length], hue: (h >>> 8) % 360 };
  });

  return { time, palette: { skyTop, skyMid, skyHorizon, ground, accent, light }, terrains, motifs, wordShapes, themes: byPriority };
};
