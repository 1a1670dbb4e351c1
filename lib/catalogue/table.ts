/**
 * The open API catalogue, in one table: for every route its upstream
 * path, method, input schema, how the input is sent and what it answers. Each group lives in
 * its own module so that a function bundles only its own group (functions/catalogue/*.ts);
 * this module gathers them for the OpenAPI document, the route checks and the tests.
 */
import { type CatalogueApi, routeKeyOf } from './api.js';
import { captchaApis } from './captcha.js';
import { languageApis } from './language.js';
import { mapsApis } from './maps.js';
import { utilityApis } from './utility.js';

export const catalogue: readonly CatalogueApi[] = [
  ...languageApis,
  ...mapsApis,
  ...captchaApis,
  ...utilityApis,
];

/** The entry of a route key such as `GET /maps/geocode`. */
export function catalogueApi(routeKey: string): CatalogueApi | undefined {
  return catalogue.find((api) => routeKeyOf(api) === routeKey);
}
