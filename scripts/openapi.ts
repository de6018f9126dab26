// `npm run openapi`: writes docs/openapi.json from the API manifest (shared/contracts). CI fails when the committed file is stale.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildOpenApiDocument } from '@helpdesk/contracts';

const file = path.resolve(__dirname, '../docs/openapi.json');
writeFileSync(file, `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
console.log(`wrote ${path.relative(process.cwd(), file)}`);
