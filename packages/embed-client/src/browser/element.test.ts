import { readElement, WATCHED } from './element';

const read = (attrs: Record<string, string>) => readElement((name) => (name in attrs ? attrs[name] : null));

describe('readElement', () => {
  it.each<[Record<string, string>, unknown]>([
    [{}, null],
    [{ 'data-service-prompt': '   ' }, null],
    [{ 'data-service-prompt': ' a fox ' }, { prompt: 'a fox' }],
    [
      {
        'data-service-prompt': 'a fox',
        'data-service-style': 'watercolor',
        'data-service-width': '512',
        'data-service-height': '768',
        'data-service-format': 'PNG',
        'data-service-mode': 'instant',
      },
      { prompt: 'a fox', style: 'watercolor', width: 512, height: 768, format: 'png', mode: 'instant' },
    ],
    [{ 'data-service-prompt': 'a fox', 'data-service-style': '', 'data-service-width': '' }, { prompt: 'a fox' }],
    [{ 'data-service-shortcut': 'hero' }, { shortcut: 'hero' }],
    [
      { 'data-service-prompt': 'a fox', 'data-service-sig': ' abc_-123 ' },
      { prompt: 'a fox', sig: 'abc_-123' },
    ],
    [{ 'data-service-shortcut': 'hero', 'data-service-sig': 'abc' }, { shortcut: 'hero' }],
    [{ 'data-service-shortcut': 'hero', 'data-service-prompt': 'a fox', 'data-service-style': 'x' }, { shortcut: 'hero' }],
  ])('%j → %j', (attrs, expected) => expect(read(attrs)).toEqual(expected));

  it.each([
    [{ 'data-service-prompt': 'x'.repeat(2001) }, 'data-service-prompt'],
    [{ 'data-service-prompt': 'a', 'data-service-style': 's'.repeat(201) }, 'data-service-style'],
    [{ 'data-service-prompt': 'a', 'data-service-width': '255' }, 'data-service-width'],
    [{ 'data-service-prompt': 'a', 'data-service-width': '2049' }, 'data-service-width'],
    [{ 'data-service-prompt': 'a', 'data-service-height': '512.5' }, 'data-service-height'],
    [{ 'data-service-prompt': 'a', 'data-service-height': '5e2' }, 'data-service-height'],
    [{ 'data-service-prompt': 'a', 'data-service-format': 'gif' }, 'data-service-format'],
    [{ 'data-service-prompt': 'a', 'data-service-mode': 'fast' }, 'data-service-mode'],
    [{ 'data-service-shortcut': 'n'.repeat(201) }, 'data-service-shortcut'],
    [{ 'data-service-prompt': 'a', 'data-service-sig': 's'.repeat(201) }, 'data-service-sig'],
    [{ 'data-service-prompt': 'a\u0000b' }, 'data-service-prompt'],
    [{ 'data-service-prompt': 'a', 'data-service-style': 'water\u0000color' }, 'data-service-style'],
  ])('out of bounds %j names %s (the element keeps its fallback; the batch is not refused)', (attrs, field) => {
    expect((read(attrs) as { error: string }).error).toMatch(new RegExp(`^${field}: `));
  });

  it('keys equal requests equally, so elements with the same prompt, style and size share one entry', () => {
    const a = read({ 'data-service-prompt': 'a fox', 'data-service-style': 'watercolor', 'data-service-width': '512' });
    const b = read({ 'data-service-width': '512', 'data-service-style': ' watercolor', 'data-service-prompt': 'a fox ' });
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });

  it('watches every attribute it reads', () => {
    expect(WATCHED).toEqual([
      'data-service-prompt',
      'data-service-shortcut',
      'data-service-style',
      'data-service-width',
      'data-service-height',
      'data-service-format',
      'data-service-mode',
      'data-service-sig',
    ]);
  });
});
