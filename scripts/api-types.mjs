// `npm run api-types`: dumps the API's OpenAPI document (built API, `npm run build` first) to
// libs/admin-client/openapi.json and generates the admin client's types libs/admin-client/src/schema.ts and its
// enumerations' values libs/admin-client/src/enums.ts (used by the CLI and the console). `--check` writes nothing and
// exits 1 when the committed files differ from what the API serves.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { root } from './lib.mjs';
import {
  GENERATED,
  openApiDocumentText,
  openApiEnums,
  openApiTypes,
} from '../libs/admin-client/scripts/openapi-types.mjs';

const require = createRequire(import.meta.url);
const check = process.argv.includes('--check');
const { createApp } = require(path.join(root, 'apps/api/dist/bootstrap.js'));
const { loadConfig } = require(path.join(root, 'apps/api/dist/config/config.schema.js'));

const app = await createApp(loadConfig({ ...process.env, LOG_LEVEL: 'silent' }), { bufferLogs: false });
let doc;
try {
  await app.init();
  const res = await app.getHttpAdapter().getInstance().inject({ method: 'GET', url: '/docs/openapi.json' });
  if (res.statusCode !== 200) throw new Error(`GET /docs/openapi.json answered ${res.statusCode}`);
  doc = JSON.parse(res.body);
} finally {
  await app.close();
}
const files = {
  [GENERATED.document]: openApiDocumentText(doc),
  [GENERATED.types]: await openApiTypes(doc),
  [GENERATED.enums]: openApiEnums(doc),
};
let stale = false;
for (const [rel, text] of Object.entries(files)) {
  const file = path.join(root, rel);
  const current = await fs.readFile(file, 'utf8').catch(() => null);
  if (current === text) continue;
  if (check) {
    console.error(`${rel} does not match the API's OpenAPI document: run npm run build && npm run api-types`);
    stale = true;
  } else {
    await fs.writeFile(file, text);
    console.log(`wrote ${rel}`);
  }
}
process.exit(stale ? 1 : 0);
