/** The catalogue's maps routes in one function (lib/catalogue/maps.ts lists them). */

import { mapsEntries } from '../../lib/catalogue/maps.ts';
import { catalogueRoutes } from '../../lib/http/catalogue-routes.ts';
import { pathParams, queryOf } from '../../lib/http/parts.ts';

export const handler = catalogueRoutes(mapsEntries, { pathParams, queryOf });
