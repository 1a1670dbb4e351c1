/** Header names of the gateway, lower case, for one vendor word (`platform` in the spec). */
export interface VendorHeaders {
  readonly timestamp: string;
  readonly accessKey: string;
  readonly signature: string;
  readonly apiKey: string;
  /** Catalogue application Client ID (the catalogue sends the Client Secret in `apiKey`). */
  readonly apiKeyId: string;
  readonly responseOrigin: string;
}

export const DEFAULT_VENDOR = 'platform';

export function vendorHeaders(vendor: string = DEFAULT_VENDOR): VendorHeaders {
  if (!/^[A-Za-z0-9]+$/.test(vendor)) {
    throw new Error(`The vendor word must be letters and digits only, got "${vendor}"`);
  }
  const word = vendor.toLowerCase();
  return {
    timestamp: `x-${word}-apigw-timestamp`,
    accessKey: `x-${word}-iam-access-key`,
    signature: `x-${word}-apigw-signature-v2`,
    apiKey: `x-${word}-apigw-api-key`,
    apiKeyId: `x-${word}-apigw-api-key-id`,
    responseOrigin: `x-${word}-apigw-response-origin`,
  };
}
