/** The catalogue's utility routes in one function (lib/catalogue/utility.ts lists them). */

import { utilityEntries } from '../../lib/catalogue/utility.js';
import { catalogueRoutes } from '../../lib/http/catalogue-routes.js';

export const handler = catalogueRoutes(utilityEntries);
