/** The catalogue's captcha routes in one function (lib/catalogue/captcha.ts lists them). */
import { catalogueFunction } from '../../lib/catalogue/function.js';
import { captchaApis } from '../../lib/catalogue/captcha.js';

export const handler = catalogueFunction('catalogueCaptcha', captchaApis);
