import { InvalidStorageKeyError, keyToUrlPath, urlPathOfKey } from './keys';

describe('urlPathOfKey', () => {
  it.each([
    ['images/0123abcdef.webp', 'images/0123abcdef.webp'],
    ['a/b/c-d_e~f.png', 'a/b/c-d_e~f.png'],
    ['.hidden/x', '.hidden/x'],
    ['images/a b.webp', 'images/a%20b.webp'],
    ['images/ж.webp', 'images/%D0%B6.webp'],
    ['images/a?b#c.webp', 'images/a%3Fb%23c.webp'],
    ['x'.repeat(1024), 'x'.repeat(1024)],
  ])('%s is the path %s, as each segment percent-encoded', (key, path) => {
    expect(urlPathOfKey(key)).toBe(path);
    expect(urlPathOfKey(key)).toBe(keyToUrlPath(key));
  });

  it.each(['', '/abs', 'a//b', 'a/./b', 'a/../b', '..', 'a/', 'a\\b', 'a\0b', 'x'.repeat(1025)])('refuses the invalid key %j', (key) => {
    expect(() => urlPathOfKey(key)).toThrow(InvalidStorageKeyError);
  });
});
