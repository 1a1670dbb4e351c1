/** The catalogue's maps routes in one function (lib/catalogue/maps.ts lists them). */

import { mapsEntries } from '../../lib/catalogue/maps.js';
import { catalogueRoutes } from '../../lib/http/catalogue-routes.js';

export const handler = catalogueRoutes(mapsEntries);
