import { addressRefusal, webhookUrlRefusal } from './address-guard';

describe('addressRefusal (SSRF guard)', () => {
  it.each([
    ['8.8.8.8'],
    ['1.1.1.1'],
    ['93.184.215.14'],
    ['100.63.255.255'],
    ['100.128.0.1'],
    ['172.15.255.255'],
    ['172.32.0.1'],
    ['2606:4700:4700::1111'],
    ['2001:4860:4860::8888'],
    ['::ffff:8.8.8.8'],
  ])('allows the public address %s', (address) => {
    expect(addressRefusal(address)).toBeNull();
  });

  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['169.254.0.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.254', 'carrier-grade NAT'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456:789a::1', 'unique-local'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    // IPv6 spellings of refused IPv4 addresses.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:10.1.2.3', 'private'],
    ['64:ff9b::a00:1', 'non-public (rfc6052)'],
    ['2002:a00:1::1', 'non-public (6to4)'],
    ['2001:0:4136:e378::1', 'non-public'],
    ['::127.0.0.1', 'loopback'],
    ['::a00:1', 'IPv4-compatible'],
  ])('refuses %s (%s)', (address, reason) => {
    expect(addressRefusal(address)).toContain(reason);
  });

  it.each([['localhost'], ['example.com'], ['999.1.1.1'], ['']])('refuses %j, which is not an IP address', (address) => {
    expect(addressRefusal(address)).toMatch(/^not an IP address/);
  });
});

describe('webhookUrlRefusal (before any DNS lookup)', () => {
  it.each([
    ['https://hooks.example.com/promptpix', null],
    ['https://8.8.8.8/hook', null],
    ['https://[2606:4700:4700::1111]/hook', null],
    ['http://127.0.0.1:8080/hook', 'loopback address 127.0.0.1'],
    ['http://[::1]:8080/hook', 'loopback address ::1'],
    ['https://10.0.0.5/hook', 'private address 10.0.0.5'],
    ['https://169.254.169.254/latest/meta-data', 'link-local address 169.254.169.254'],
    ['http://localhost:3000/hook', 'loopback name localhost'],
    ['https://LOCALHOST/hook', 'loopback name localhost'],
    ['https://api.localhost/hook', 'loopback name api.localhost'],
    ['https://localhost.example.com/hook', null],
    ['not a url', 'not a URL'],
  ])('%s → %s', (url, expected) => {
    expect(webhookUrlRefusal(url)).toBe(expected);
  });
});
