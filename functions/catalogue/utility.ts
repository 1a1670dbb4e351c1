/** The catalogue's utility routes in one function (lib/catalogue/utility.ts lists them). */

import { utilityEntries } from '../../lib/catalogue/utility.ts';
import { catalogueRoutes } from '../../lib/http/catalogue-routes.ts';
import { jsonBody, queryOf } from '../../lib/http/parts.ts';

export const handler = catalogueRoutes(utilityEntries, { jsonBody, queryOf });
