/** The catalogue's captcha routes in one function (lib/catalogue/captcha.ts lists them). */

import { captchaEntries } from '../../lib/catalogue/captcha.ts';
import { catalogueRoutes } from '../../lib/http/catalogue-routes.ts';
import { jsonBody, queryOf } from '../../lib/http/parts.ts';

export const handler = catalogueRoutes(captchaEntries, { jsonBody, queryOf });
