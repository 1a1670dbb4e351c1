/**
 * The open API catalogue, in one table: for every route its upstream
 * path, method, input schema, how the input is sent and what it answers. Each group lives in
 * its own module so that a function bundles only its own group (functions/catalogue/*.ts);
 * this module gathers them for the route registry, the OpenAPI document and the tests.
 */

import { captchaEntries } from './captcha.ts';
import type { CatalogueEntry } from './entry.ts';
import { languageEntries } from './language.ts';
import { mapsEntries } from './maps.ts';
import { utilityEntries } from './utility.ts';

export const catalogue: readonly CatalogueEntry[] = [
  ...languageEntries,
  ...mapsEntries,
  ...captchaEntries,
  ...utilityEntries,
];
