import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { parseCancelAfter, parseIdempotencyKey } from '@promptpix/core';
import { buildOpenApiDocument } from './document';
import type { OpenApiDocument } from './document';
import * as walk from './document-walk';
import { methodsOf } from './document-walk';

const doc = buildOpenApiDocument({ serverUrl: 'https://images.example.com', version: '1.2.3' });
// The tests read the document as plain JSON, following optional members without narrowing each.
const findOperation = (d: OpenApiDocument, method: string, path: string): any => walk.findOperation(d, method, path);
const resolveRef = (d: OpenApiDocument, value: unknown): any => walk.resolveRef(d, value);

const schemaOf = (method: string, path: string) => {
  const op = findOperation(doc, method, path);
  const body = resolveRef(doc, op?.requestBody);
  return resolveRef(doc, body?.content?.['application/json']?.schema);
};
const at = (schema: any, ...keys: string[]) => keys.reduce((s, k) => resolveRef(doc, k === '[]' ? s?.items : s?.properties?.[k]), schema);
const queryParam = (method: string, path: string, name: string) =>
  findOperation(doc, method, path)?.parameters?.find((p: any) => p.in === 'query' && p.name === name)?.schema;
const headerParam = (method: string, path: string, name: string) =>
  findOperation(doc, method, path)?.parameters?.find((p: any) => p.in === 'header' && p.name === name)?.schema;

describe('OpenAPI document', () => {
  it('validates against the OpenAPI 3.1 schema (@seriousme/openapi-schema-validator)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
    try {
      const file = join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(doc));
      const cli = require.resolve('@seriousme/openapi-schema-validator/bin/validate-api-cli.js');
      const out = execFileSync(process.execPath, [cli, file], { encoding: 'utf8' });
      expect(JSON.parse(out)).toEqual({ valid: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names its version and server', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.2.3');
    expect(doc.servers).toEqual([{ url: 'https://images.example.com' }]);
  });

  it.each([
    ['post', '/api/v1/generate', 'secret'],
    ['get', '/api/v1/job/{jobId}', 'either'],
    ['get', '/api/v1/render', 'secret'],
    ['get', '/api/v1/image/{id}', 'secret'],
    ['patch', '/api/v1/image/{id}/pin', 'secret'],
    ['delete', '/api/v1/image/{id}/pin', 'secret'],
    ['patch', '/api/v1/image/{id}/reject', 'secret'],
    ['get', '/api/v1/styles', 'either'],
    ['get', '/api/v1/styles/public', 'none'],
    ['get', '/api/v1/characters', 'secret'],
    ['post', '/api/v1/embed/resolve', 'either'],
    ['post', '/api/v1/analytics/events', 'either'],
    ['get', '/api/img/{handle}/{name}', 'none'],
    ['get', '/api/health', 'none'],
  ])('%s %s needs a %s key (spec, Endpoints summary)', (method, path, key) => {
    const security = findOperation(doc, method, path)?.security;
    const schemes = (security ?? []).flatMap((s: object) => Object.keys(s));
    if (key === 'none') expect(schemes).toEqual([]);
    else expect(schemes).toEqual(key === 'secret' ? ['secretKey', 'keyQuery'] : ['secretKey', 'publishableKey', 'keyQuery']);
  });

  it.each([
    ['generate prompt', () => at(schemaOf('post', '/api/v1/generate'), 'prompt'), { type: 'string', minLength: 1, maxLength: 2000 }],
    [
      'generate width',
      () => at(schemaOf('post', '/api/v1/generate'), 'width'),
      { type: 'integer', minimum: 256, maximum: 2048, multipleOf: 64, default: 1024 },
    ],
    [
      'generate height',
      () => at(schemaOf('post', '/api/v1/generate'), 'height'),
      { type: 'integer', minimum: 256, maximum: 2048, multipleOf: 64, default: 1024 },
    ],
    ['generate strength', () => at(schemaOf('post', '/api/v1/generate'), 'strength'), { type: 'number', minimum: 0, maximum: 1, default: 1 }],
    ['generate format', () => at(schemaOf('post', '/api/v1/generate'), 'format'), { enum: ['png', 'jpeg', 'webp'], default: 'webp' }],
    ['generate ageBuckets', () => at(schemaOf('post', '/api/v1/generate'), 'ageBuckets'), { type: 'array', maxItems: 1 }],
    ['generate mode', () => at(schemaOf('post', '/api/v1/generate'), 'mode'), { enum: ['generate', 'instant'], default: 'generate' }],
    ['generate character', () => at(schemaOf('post', '/api/v1/generate'), 'character'), { type: 'string', format: 'uuid' }],
    ['embed elements', () => at(schemaOf('post', '/api/v1/embed/resolve'), 'elements'), { type: 'array', minItems: 1, maxItems: 50 }],
    ['embed element id', () => at(schemaOf('post', '/api/v1/embed/resolve'), 'elements', '[]', 'id'), { minLength: 1, maxLength: 100 }],
    ['embed shortcut', () => at(schemaOf('post', '/api/v1/embed/resolve'), 'elements', '[]', 'shortcut'), { minLength: 1, maxLength: 200 }],
    ['embed style', () => at(schemaOf('post', '/api/v1/embed/resolve'), 'elements', '[]', 'style'), { maxLength: 200 }],
    [
      'embed width',
      () => at(schemaOf('post', '/api/v1/embed/resolve'), 'elements', '[]', 'width'),
      { type: 'integer', minimum: 256, maximum: 2048, default: 1024 },
    ],
    ['embed age', () => at(schemaOf('post', '/api/v1/embed/resolve'), 'elements', '[]', 'age'), { enum: ['kids', 'bigkids', 'adults'] }],
    ['embed tags', () => at(schemaOf('post', '/api/v1/embed/resolve'), 'elements', '[]', 'tags'), { maxItems: 10 }],
    ['analytics events', () => at(schemaOf('post', '/api/v1/analytics/events'), 'events'), { minItems: 1, maxItems: 100 }],
    [
      'analytics eventType',
      () => at(schemaOf('post', '/api/v1/analytics/events'), 'events', '[]', 'eventType'),
      { enum: ['impression', 'click', 'generate', 'cache_hit', 'pin', 'reject', 'style_applied', 'heart', 'flag', 'view'] },
    ],
    ['render prompt', () => queryParam('get', '/api/v1/render', 'prompt'), { minLength: 1, maxLength: 2000 }],
    ['render width', () => queryParam('get', '/api/v1/render', 'width'), { type: 'integer', minimum: 256, maximum: 2048, multipleOf: 64, default: 1024 }],
  ])('%s carries the bounds of the spec', (_name, schema, expected) => {
    expect(schema()).toMatchObject(expected);
  });

  describe("states the gateway's own rules for the generate headers", () => {
    // A header arrives as text; coercion reads "90" as the integer the document describes.
    const accepts = (schema: object) => {
      const validate = new Ajv2020({ coerceTypes: true }).compile(schema);
      return (value: string) => validate(value);
    };
    const documented = (name: string) => accepts(headerParam('post', '/api/v1/generate', name));

    it.each(['0', '1', '2', '59', '3599', '3600', '3601', '9999', '10000', '-5', '1.5', 'abc', 'Tue, 24 Nov 2026 12:00:00 GMT'])(
      'Cancel-After: %p',
      (value) => {
        expect(documented('Cancel-After')(value)).toBe(!('error' in parseCancelAfter(value, new Date())));
      },
    );

    it.each(['k-1', '0f8c3b2e-4c1d-4e55-9a8e-2f1f0d7c9b11', 'x'.repeat(255), 'x'.repeat(256), '', 'has space', 'ünïcode', 'tab\there', '~!@#$%^&*()'])(
      'Idempotency-Key: %p',
      (value) => {
        expect(documented('Idempotency-Key')(value)).toBe(!('error' in parseIdempotencyKey(value)));
      },
    );
  });

  it('requires what the spec requires', () => {
    expect(schemaOf('post', '/api/v1/generate').required).toEqual(['prompt']);
    expect(at(schemaOf('post', '/api/v1/embed/resolve'), 'elements', '[]').required).toEqual(['id']);
    expect(at(schemaOf('post', '/api/v1/analytics/events'), 'events', '[]').required).toEqual(['eventType']);
  });

  it.each([
    ['post', '/api/v1/generate', ['200', '202', '400', '401', '402', '403', '404', '429']],
    ['get', '/api/v1/job/{jobId}', ['200', '401', '403', '404']],
    ['get', '/api/v1/image/{id}', ['302', '401', '404']],
    ['patch', '/api/v1/image/{id}/pin', ['200', '401', '403', '404', '500']],
    ['delete', '/api/v1/image/{id}/pin', ['200', '401', '403', '404', '500']],
    ['patch', '/api/v1/image/{id}/reject', ['200', '401', '403', '404', '500']],
    ['get', '/api/v1/styles', ['200', '401', '403']],
    ['get', '/api/v1/styles/public', ['200']],
    ['get', '/api/v1/characters', ['200', '401', '403', '500']],
    ['post', '/api/v1/embed/resolve', ['200', '400', '401', '403', '429']],
    ['post', '/api/v1/analytics/events', ['202', '400', '401', '403', '429']],
    ['get', '/api/health', ['200']],
  ])('%s %s documents every status of the spec', (method, path, statuses) => {
    expect(Object.keys(findOperation(doc, method, path)?.responses ?? {})).toEqual(expect.arrayContaining(statuses));
  });

  it.each([
    [
      'post',
      '/api/v1/generate',
      '202',
      ['X-Quota-Used', 'X-Quota-Limit', 'X-Quota-Reset', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'Idempotent-Replayed'],
    ],
    ['post', '/api/v1/generate', '402', ['X-Quota-Used', 'X-Quota-Limit', 'X-Quota-Reset', 'X-RateLimit-Limit', 'X-RateLimit-Remaining']],
    ['post', '/api/v1/generate', '409', ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'Retry-After']],
    ['get', '/api/v1/render', '302', ['Location', 'X-RateLimit-Limit', 'X-RateLimit-Remaining']],
    ['get', '/api/v1/render', '402', ['X-Quota-Used', 'X-Quota-Limit', 'X-Quota-Reset', 'X-RateLimit-Limit', 'X-RateLimit-Remaining']],
    ['get', '/api/v1/render', '503', ['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining']],
    ['post', '/api/v1/generate', '429', ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'Retry-After']],
    ['get', '/api/v1/render', '429', ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'Retry-After']],
    ['post', '/api/v1/embed/resolve', '200', ['X-RateLimit-Limit', 'X-RateLimit-Remaining']],
    ['post', '/api/v1/analytics/events', '429', ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'Retry-After']],
    ['get', '/api/v1/image/{id}', '302', ['Location']],
  ])('%s %s %s documents the headers %j', (method, path, status, headers) => {
    const response = resolveRef(doc, findOperation(doc, method, path)?.responses?.[status]);
    expect(Object.keys(response?.headers ?? {})).toEqual(expect.arrayContaining(headers));
  });

  it('gives every operation a unique operationId, a summary and a tag', () => {
    const ops = Object.entries(doc.paths ?? {}).flatMap(([path, item]) => methodsOf(item).map((m) => ({ path, m, op: (item as any)[m] })));
    expect(ops.length).toBeGreaterThan(30);
    const ids = ops.map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { op } of ops) {
      expect(op.summary).toEqual(expect.any(String));
      expect(op.tags).toHaveLength(1);
    }
  });
});
