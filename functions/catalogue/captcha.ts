/** The catalogue's captcha routes in one function (lib/catalogue/captcha.ts lists them). */

import { captchaEntries } from '../../lib/catalogue/captcha.js';
import { catalogueFunction } from '../../lib/http/catalogue-function.js';

export const handler = catalogueFunction('catalogueCaptcha', captchaEntries);
