/** `npm run --silent openapi > openapi.json`: the OpenAPI document, for code generators and linters. */
import { loadConfig } from '@promptpix/runtime';
import { buildOpenApiDocument } from './document';
import { packageVersion } from './version';

const config = loadConfig(process.env);
process.stdout.write(`${JSON.stringify(buildOpenApiDocument({ serverUrl: config.publicBaseUrl, version: packageVersion() }), null, 2)}\n`);
