/** The platform gateway's header names, which carry its vendor word (GATEWAY_VENDOR, `platform` by default). */

type GatewayHeaderNames = Readonly<{
  timestamp: string;
  accessKey: string;
  signature: string;
  apiKey: string;
  clientId: string;
  /** Who produced an answer: APIGW (the gateway itself) or ENDPOINT. */
  responseOrigin: string;
}>;

/** Built once per vendor word: every call needs them. */
const namesByVendor = new Map<string, GatewayHeaderNames>();

/** The gateway's header names for a vendor word, in lower case. */
export function gatewayHeaderNames(vendor: string): GatewayHeaderNames {
  let names = namesByVendor.get(vendor);
  if (!names) {
    const v = vendor.toLowerCase();
    names = {
      timestamp: `x-${v}-apigw-timestamp`,
      accessKey: `x-${v}-iam-access-key`,
      signature: `x-${v}-apigw-signature-v2`,
      apiKey: `x-${v}-apigw-api-key`,
      clientId: `x-${v}-apigw-api-key-id`,
      responseOrigin: `x-${v}-apigw-response-origin`,
    };
    namesByVendor.set(vendor, names);
  }
  return names;
}
