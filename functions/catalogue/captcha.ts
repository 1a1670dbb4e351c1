/** The catalogue's captcha routes in one function (lib/catalogue/captcha.ts lists them). */

import { captchaEntries } from '../../lib/catalogue/captcha.js';
import { catalogueRoutes } from '../../lib/http/catalogue-routes.js';

export const handler = catalogueRoutes(captchaEntries);
