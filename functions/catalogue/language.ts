/** The catalogue's language routes in one function (lib/catalogue/language.ts lists them). */

import { languageEntries } from '../../lib/catalogue/language.js';
import { catalogueRoutes } from '../../lib/http/catalogue-routes.js';

export const handler = catalogueRoutes(languageEntries);
