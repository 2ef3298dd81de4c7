import { createRng } from './prng';
import { dominantHue, placeSubjects } from './subject-paint';
import type { Subject } from './subjects';
import type { Ridge } from './terrain';

const subject = (icon: string, over: Partial<Subject> = {}): Subject => ({ match: { icon, label: icon, score: 3 }, words: [icon], count: 1, ...over });
const flat = (y: number, depth: number): Ridge => ({ kind: 'hills', depth, yAt: () => y });
const stage = { width: 1000, height: 1000, ridges: [flat(500, 0), flat(650, 0.5), flat(800, 1)] };
const place = (subjects: Subject[], seed = 1) => placeSubjects(subjects, createRng(seed), stage);

describe('placeSubjects', () => {
  it('stands one subject large in the middle, on the near ground', () => {
    const [p] = place([subject('dog')]);
    expect(p.x).toBeGreaterThan(400);
    expect(p.x).toBeLessThan(600);
    expect(p.size).toBeGreaterThanOrEqual(400);
    expect(p.baseY).toBeGreaterThan(800);
  });

  it('draws each copy of a count, the farther ones smaller, higher and first', () => {
    const placed = place([subject('cat', { count: 3 })]);
    expect(placed).toHaveLength(3);
    const [far, , near] = placed;
    expect(far.size).toBeLessThan(near.size);
    expect(far.baseY).toBeLessThan(near.baseY);
  });

  it('places by relation: on sits on top and later, in front of is nearer and later, behind is farther and earlier', () => {
    const on = place([subject('cat', { relation: { kind: 'on', to: 1 } }), subject('chair')]);
    const [chair, cat] = on;
    expect([chair.subject, cat.subject]).toEqual([1, 0]);
    expect(cat.baseY).toBeLessThan(chair.baseY - chair.size * 0.5);
    const front = place([subject('dog', { relation: { kind: 'in front of', to: 1 } }), subject('house')]);
    expect(front.map((p) => p.subject)).toEqual([1, 0]);
    expect(front[1].baseY).toBeGreaterThan(front[0].baseY);
    const behind = place([subject('tree', { relation: { kind: 'behind', to: 1 } }), subject('house')]);
    expect(behind.map((p) => p.subject)).toEqual([0, 1]);
  });

  it('stands a subject on a setting word on the middle terrain', () => {
    const [p] = place([subject('lighthouse', { relation: { kind: 'on', to: 'cliff' } })]);
    expect(p.baseY).toBeLessThan(700);
    expect(p.grounded).toBe(false);
  });

  it('is the same for the same seed', () => {
    expect(place([subject('dog'), subject('cat', { count: 2 })], 9)).toEqual(place([subject('dog'), subject('cat', { count: 2 })], 9));
  });
});

describe('dominantHue', () => {
  it('is the fullest hue of the markup, or undefined for grey', () => {
    expect(dominantHue('<path fill="#f8312f"/><path fill="#f8312f"/><path fill="#00a6ed"/>')).toBe(15);
    expect(dominantHue('<path fill="#808080"/><path fill="#fff"/>')).toBeUndefined();
  });
});
