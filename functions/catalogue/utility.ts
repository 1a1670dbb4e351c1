/** The catalogue's utility routes in one function (lib/catalogue/utility.ts lists them). */
import { catalogueFunction } from '../../lib/catalogue/function.js';
import { utilityApis } from '../../lib/catalogue/utility.js';

export const handler = catalogueFunction('catalogueUtility', utilityApis);
