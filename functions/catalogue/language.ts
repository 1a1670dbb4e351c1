/** The catalogue's language routes in one function (lib/catalogue/language.ts lists them). */

import { languageApis } from '../../lib/catalogue/language.js';
import { catalogueFunction } from '../../lib/http/catalogue-function.js';

export const handler = catalogueFunction('catalogueLanguage', languageApis);
