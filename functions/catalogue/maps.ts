/** The catalogue's maps routes in one function (lib/catalogue/maps.ts lists them). */

import { mapsEntries } from '../../lib/catalogue/maps.js';
import { catalogueFunction } from '../../lib/http/catalogue-function.js';

export const handler = catalogueFunction('catalogueMaps', mapsEntries);
