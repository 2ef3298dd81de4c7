import { buildRenderUrl, buildUrl, normalizeBaseUrl, segment } from './urls';

describe('normalizeBaseUrl', () => {
  it.each([
    ['https://images.example.com', 'https://images.example.com'],
    ['https://images.example.com/', 'https://images.example.com'],
    ['http://127.0.0.1:8080//', 'http://127.0.0.1:8080'],
    ['https://example.com/promptpix/', 'https://example.com/promptpix'],
    ['HTTPS://Example.COM', 'https://example.com'],
  ])('%s → %s', (input, expected) => expect(normalizeBaseUrl(input)).toBe(expected));

  it.each(['images.example.com', '/api', 'ftp://example.com', 'https://example.com/?x=1', 'https://example.com/#top', ''])('refuses %p', (input) => {
    expect(() => normalizeBaseUrl(input)).toThrow(TypeError);
  });
});

describe('buildUrl', () => {
  it.each([
    ['/api/v1/styles', {}, 'https://h/api/v1/styles'],
    ['/api/v1/image/x', { jobId: undefined }, 'https://h/api/v1/image/x'],
    ['/api/v1/image/x', { jobId: 'j-1' }, 'https://h/api/v1/image/x?jobId=j-1'],
    ['/p', { a: 'x y&z', b: 2 }, 'https://h/p?a=x+y%26z&b=2'],
  ])('%s %j → %s', (path, query, expected) => expect(buildUrl('https://h', path, query)).toBe(expected));
});

describe('segment', () => {
  it.each([
    ['0f8c3b2e-4c1d-4e55-9a8e-2f1f0d7c9b11', '0f8c3b2e-4c1d-4e55-9a8e-2f1f0d7c9b11'],
    ['../admin', '..%2Fadmin'],
    ['a?b#c', 'a%3Fb%23c'],
  ])('%s → %s', (input, expected) => expect(segment(input)).toBe(expected));
});

describe('buildRenderUrl', () => {
  it.each([
    [{ prompt: 'a fox' }, 'https://h/api/v1/render?prompt=a+fox&key=sk_live_k'],
    [
      { prompt: 'a fox', style: 'watercolor', width: 512, height: 768, format: 'png' as const, age: 'kids' as const },
      'https://h/api/v1/render?prompt=a+fox&style=watercolor&width=512&height=768&format=png&age=kids&key=sk_live_k',
    ],
    [{ prompt: 'a fox', seed: 42, negativePrompt: 'snow, people' }, 'https://h/api/v1/render?prompt=a+fox&seed=42&negativePrompt=snow%2C+people&key=sk_live_k'],
    [
      { prompt: 'ünïcode & =?#', character: '0f8c3b2e-4c1d-4e55-9a8e-2f1f0d7c9b11' },
      'https://h/api/v1/render?prompt=%C3%BCn%C3%AFcode+%26+%3D%3F%23&character=0f8c3b2e-4c1d-4e55-9a8e-2f1f0d7c9b11&key=sk_live_k',
    ],
  ])('%j', (query, expected) => {
    const url = buildRenderUrl('https://h', 'sk_live_k', query);
    expect(url).toBe(expected);
    expect(new URL(url).searchParams.get('prompt')).toBe(query.prompt);
  });
});
