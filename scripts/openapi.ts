/** Writes the OpenAPI 3.1 document of every route to openapi.json at the repository root. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildOpenApiDocument } from '../lib/http/openapi.ts';
import { commandLine, noArguments } from './local/args.ts';

commandLine('usage: npm run openapi (it takes no argument)', noArguments);

const file = path.resolve(import.meta.dirname, '../openapi.json');
const document = buildOpenApiDocument();
writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
console.log(`Wrote ${file}: ${Object.keys(document.paths).length} paths.`);
