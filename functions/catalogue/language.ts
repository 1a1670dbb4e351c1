/** The catalogue's language routes in one function (lib/catalogue/language.ts lists them). */

import { languageEntries } from '../../lib/catalogue/language.js';
import { catalogueFunction } from '../../lib/http/catalogue-function.js';

export const handler = catalogueFunction('catalogueLanguage', languageEntries);
