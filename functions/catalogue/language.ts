/** The catalogue's language routes in one function (lib/catalogue/language.ts lists them). */

import { languageEntries } from '../../lib/catalogue/language.ts';
import { catalogueRoutes } from '../../lib/http/catalogue-routes.ts';
import { bytesBody, jsonBody, queryOf } from '../../lib/http/parts.ts';

export const handler = catalogueRoutes(languageEntries, { bytesBody, jsonBody, queryOf });
