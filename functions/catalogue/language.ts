/** The catalogue's language routes in one function (lib/catalogue/language.ts lists them). */
import { catalogueFunction } from '../../lib/catalogue/function.js';
import { languageApis } from '../../lib/catalogue/language.js';

export const handler = catalogueFunction('catalogueLanguage', languageApis);
