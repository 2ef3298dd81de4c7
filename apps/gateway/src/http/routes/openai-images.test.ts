/** Contract tests: OpenAI's published request and answer shapes against this service's schemas. */
import { openAiImagesResponseSchema } from '../openai-takes';
import { openAiImageRequestSchema, parseImageSize } from './openai-images';
import { openAiModelListSchema, servedModels } from './openai-models';
import { publishedCreateImageRequest, publishedImageSizes, publishedImagesResponse, publishedModelList } from './openai-published';

const fieldsOf = (body: unknown) => {
  const result = openAiImageRequestSchema.safeParse(body);
  return result.success ? [] : result.error.issues.map((issue) => String(issue.path[0]));
};

describe('POST /v1/images/generations request', () => {
  it.each([
    ['the dall-e-3 reference example', { model: 'dall-e-3', prompt: 'A cute baby sea otter', n: 1, size: '1024x1024' }],
    [
      'a gpt-image-1 request with its own options',
      {
        model: 'gpt-image-1',
        prompt: 'A cute baby sea otter',
        size: '1536x1024',
        quality: 'high',
        output_format: 'webp',
        background: 'auto',
        moderation: 'low',
        output_compression: 80,
      },
    ],
    ['a dall-e-2 request for two base64 takes', { prompt: 'A cute baby sea otter', n: 2, size: '256x256', response_format: 'b64_json', user: 'user-1234' }],
    [
      'every optional field null',
      { prompt: 'x', model: null, n: null, size: null, quality: null, style: null, response_format: null, output_format: null, stream: null },
    ],
    ['OpenAI style and quality values', { prompt: 'x', style: 'vivid', quality: 'hd' }],
    ['stream: false', { prompt: 'x', stream: false }],
  ])('accepts what OpenAI publishes: %s', (_name, body) => {
    expect(publishedCreateImageRequest.safeParse(body).success).toBe(true);
    expect(fieldsOf(body)).toEqual([]);
  });

  it.each([
    ['more takes than this service makes', { prompt: 'x', n: 5 }, 'n'],
    ['streaming', { prompt: 'x', stream: true }, 'stream'],
    ['a prompt over 2000 characters', { prompt: 'x'.repeat(2001) }, 'prompt'],
  ])('refuses, naming the field, what OpenAI publishes but this service bounds tighter: %s', (_name, body, field) => {
    expect(publishedCreateImageRequest.safeParse(body).success).toBe(true);
    expect(fieldsOf(body)).toEqual([field]);
  });

  it.each([
    ['a size off the 64 grid', { prompt: 'x', size: '1000x1000' }, 'size'],
    ['a size that is not WxH', { prompt: 'x', size: 'large' }, 'size'],
    ['an unknown response format', { prompt: 'x', response_format: 'file' }, 'response_format'],
    ['a seed out of range', { prompt: 'x', seed: -1 }, 'seed'],
    ['a character that is not a uuid', { prompt: 'x', character: 'pip' }, 'character'],
    ['no prompt', { n: 1 }, 'prompt'],
  ])('refuses bad input naming the field: %s', (_name, body, field) => {
    expect(fieldsOf(body)).toEqual([field]);
  });

  it("takes each of OpenAI's named sizes", () => {
    for (const size of publishedImageSizes)
      expect({ size, parsed: parseImageSize(size) }).toEqual({ size, parsed: { width: expect.any(Number), height: expect.any(Number) } });
  });

  it.each([
    ['auto', { width: 1024, height: 1024 }],
    ['1792x1024', { width: 1792, height: 1024 }],
    ['256x2048', { width: 256, height: 2048 }],
    ['192x256', { error: 'The width 192: Must be at least 256' }],
    ['256x2112', { error: 'The height 2112: Must be at most 2048' }],
    ['1000x1024', { error: 'The width 1000: Must be a multiple of 64' }],
    ['1024×1024', { error: 'Expected auto or WIDTHxHEIGHT, such as 1024x1024' }],
    ['1024x', { error: 'Expected auto or WIDTHxHEIGHT, such as 1024x1024' }],
  ])('parseImageSize(%s)', (size, expected) => {
    expect(parseImageSize(size)).toEqual(expected);
  });
});

describe("answers in OpenAI's published shapes", () => {
  it.each([
    ['url', { created: 1764000000, data: [{ url: 'https://img.example.com/images/a.png' }], output_format: 'png' as const }],
    ['b64_json, two takes', { created: 1764000000, data: [{ b64_json: 'iVBORw0KGgo=' }, { b64_json: 'iVBORw0KGgo=' }], output_format: 'webp' as const }],
  ])('an images answer (%s)', (_name, answer) => {
    expect(publishedImagesResponse.parse(openAiImagesResponseSchema.parse(answer))).toEqual(answer);
  });

  it('the model list', () => {
    const list = openAiModelListSchema.parse({ object: 'list', data: servedModels({ ids: ['openai:gpt-image-1', 'sdxl-gpu'] }, 1764000000) });
    expect(publishedModelList.parse(list)).toEqual({
      object: 'list',
      data: [
        { id: 'openai:gpt-image-1', object: 'model', created: 1764000000, owned_by: 'promptpix' },
        { id: 'sdxl-gpu', object: 'model', created: 1764000000, owned_by: 'promptpix' },
      ],
    });
  });
});
