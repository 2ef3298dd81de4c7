import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import type { OpenApiDocument } from './document';
import { findOperation, isJsonObject, resolveRef, type JsonObject } from './document-walk';

export interface RecordedResponse {
  method: string;
  /** The documented path template, e.g. /api/v1/job/{jobId}. */
  path: string;
  status: number;
  headers: Headers;
  /** The parsed JSON body, or the text of a non-JSON one. */
  body: unknown;
}

/** Headers of the API's own that a caller acts on: one sent on a response must be documented for its status. */
const API_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-Quota-Used', 'X-Quota-Limit', 'X-Quota-Reset', 'Retry-After', 'Idempotent-Replayed'];

const pointerKey = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
const objectOr = (value: unknown): JsonObject => (isJsonObject(value) ? value : {});
const mediaType = (contentType: string | null) => (contentType ?? '').split(';')[0].trim().toLowerCase();

/**
 * Checks a response recorded from the running service against the document: the status is
 * documented for the operation, the content type is one it lists, a JSON body matches the
 * schema (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses) and required headers are present and
 * well-formed, and none of the API's own headers is sent without being documented. Returns the problems found; none means the response is as documented.
 */
export function createResponseValidator(doc: OpenApiDocument) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(doc as object, 'openapi');
  const compiled = new Map<string, ValidateFunction>();
  const validatorAt = (pointer: string) => {
    let validate = compiled.get(pointer);
    if (!validate) {
      validate = ajv.compile({ $ref: `openapi#${pointer}` });
      compiled.set(pointer, validate);
    }
    return validate;
  };

  return function check(r: RecordedResponse): string[] {
    const where = `${r.method.toUpperCase()} ${r.path} → ${r.status}`;
    const op = findOperation(doc, r.method, r.path);
    if (!op) return [`${where}: operation not documented`];
    const responses = objectOr(op.responses);
    const raw = responses[String(r.status)];
    if (!raw) return [`${where}: status not documented (documented: ${Object.keys(responses).join(', ')})`];
    const response = resolveRef(doc, raw);
    if (!isJsonObject(response)) throw new TypeError(`${where}: the documented response is not an object`);
    const base =
      isJsonObject(raw) && typeof raw.$ref === 'string' ? raw.$ref.slice(1) : `/paths/${pointerKey(r.path)}/${r.method.toLowerCase()}/responses/${r.status}`;
    const problems: string[] = [];

    const documentedTypes = Object.keys(objectOr(response.content));
    const actualType = mediaType(r.headers.get('content-type'));
    if (documentedTypes.length && !documentedTypes.includes(actualType))
      problems.push(`${where}: content type ${actualType || '(none)'} not in ${documentedTypes.join(', ')}`);
    if (actualType === 'application/json' && documentedTypes.includes('application/json')) {
      const validate = validatorAt(`${base}/content/application~1json/schema`);
      if (!validate(r.body)) problems.push(`${where}: body ${JSON.stringify(r.body)} does not match: ${ajv.errorsText(validate.errors)}`);
    }

    const documentedHeaders = new Set(Object.keys(objectOr(response.headers)).map((name) => name.toLowerCase()));
    for (const name of API_HEADERS)
      if (r.headers.has(name) && !documentedHeaders.has(name.toLowerCase())) problems.push(`${where}: header ${name} sent but not documented`);
    for (const [name, documented] of Object.entries(objectOr(response.headers))) {
      const header = objectOr(documented);
      const value = r.headers.get(name);
      if (value === null) {
        if (header.required) problems.push(`${where}: required header ${name} missing`);
        continue;
      }
      const schema = objectOr(header.schema);
      if (schema.type === 'integer' && !/^\d+$/.test(value)) problems.push(`${where}: header ${name}=${value} is not an integer`);
      if (schema.format === 'date-time' && Number.isNaN(Date.parse(value))) problems.push(`${where}: header ${name}=${value} is not a timestamp`);
    }
    return problems;
  };
}
