/** The catalogue's maps routes in one function (lib/catalogue/maps.ts lists them). */
import { catalogueFunction } from '../../lib/catalogue/function.js';
import { mapsApis } from '../../lib/catalogue/maps.js';

export const handler = catalogueFunction('catalogueMaps', mapsApis);
