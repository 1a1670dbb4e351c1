/** The catalogue's utility routes in one function (lib/catalogue/utility.ts lists them). */

import { utilityEntries } from '../../lib/catalogue/utility.js';
import { catalogueFunction } from '../../lib/http/catalogue-function.js';

export const handler = catalogueFunction('catalogueUtility', utilityEntries);
