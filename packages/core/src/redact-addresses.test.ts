import { redactAddresses } from './redact-addresses';

describe('redactAddresses', () => {
  it.each([
    [
      'a refused connection (Node)',
      'Image generation failed: a1111: network error calling /sdapi/v1/txt2img: connect ECONNREFUSED 127.0.0.1:19100',
      'Image generation failed: a1111: network error calling /sdapi/v1/txt2img: connect ECONNREFUSED <address>',
    ],
    ['an unknown host (getaddrinfo)', 'getaddrinfo ENOTFOUND gpu-box.internal', 'getaddrinfo ENOTFOUND <address>'],
    ['a DNS hiccup naming the host and port', 'getaddrinfo EAI_AGAIN minio:9000', 'getaddrinfo EAI_AGAIN <address>'],
    [
      'a URL with credentials and a path',
      'request to http://user:secret@10.0.3.7:7860/sdapi/v1/txt2img failed, reason: socket hang up',
      'request to <address> failed, reason: socket hang up',
    ],
    ['an S3 endpoint', 'Service may not be available at https://minio.storage.svc:9000/bucket/images/a.webp', 'Service may not be available at <address>'],
    [
      'the AWS SDK naming a host it cannot reach',
      "Inaccessible host: `minio.storage.svc' at port `9000'. This service may not be available in the `us-east-1' region.",
      "<address>. This service may not be available in the `us-east-1' region.",
    ],
    ['a host and port at the end of a sentence', 'socket hang up talking to gpu-box:7860.', 'socket hang up talking to <address>.'],
    ['Prisma naming the database server', "Can't reach database server at `db.internal`:`5432`", "Can't reach database server at <address>"],
    ['a host and port', 'connect ETIMEDOUT redis-master.cache:6379', 'connect ETIMEDOUT <address>'],
    ['an IPv6 loopback with a port', 'connect ECONNREFUSED ::1:5432', 'connect ECONNREFUSED <address>'],
    ['a bracketed IPv6 address', 'connect ECONNREFUSED [fd00:12::7]:7860', 'connect ECONNREFUSED <address>'],
    ['a full IPv6 address', 'EHOSTUNREACH 2001:0db8:0000:0000:0000:ff00:0042:8329', 'EHOSTUNREACH <address>'],
    ['an unreachable network', 'connect ENETUNREACH 10.1.2.3', 'connect ENETUNREACH <address>'],
  ])('%s', (_name, text, expected) => {
    expect(redactAddresses(text)).toBe(expected);
  });

  it.each([
    ['a provider refusal', 'Image generation failed: openai: HTTP 400: Your request was rejected by the safety system'],
    ['a timeout', 'Image generation failed: a1111: no result within 90000 ms'],
    ['a decode error', 'Image generation failed: the image cannot be decoded (vipspng: libpng read error)'],
    ['a model down', 'Image generation failed: the model "sdxl-1.0:turbo" is unavailable (its backend keeps failing); try again later'],
    ['a time and a date', 'Image generation failed: cancelled at 2030-01-01T12:30:45.000Z (12:30:45)'],
    ['a ratio and a version', 'Image generation failed: replicate: aspect_ratio 16:9 is not supported by black-forest-labs/flux-schnell v1.2.3'],
  ])('leaves %s alone', (_name, text) => {
    expect(redactAddresses(text)).toBe(text);
  });
});
