/** Who produced an answer, as the gateway tells it in x-<vendor>-apigw-response-origin. */
type ResponseOrigin = 'APIGW' | 'ENDPOINT';

/** Request header names are lower case; repeated headers are joined with ", ". */
export type RequestHeaders = Readonly<Record<string, string>>;

/** A request as the gateway sees it once its body has been read. */
export interface GatewayRequest {
  /** Method exactly as received (HTTP methods are case-sensitive). */
  readonly method: string;
  /** The request target exactly as received: path and query, percent-encoding untouched. */
  readonly target: string;
  /** The part of `target` before any `?`. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: RequestHeaders;
  readonly body: Buffer;
  /** The gateway's clock for this request in ms, skew faults included. */
  readonly gatewayNow: number;
}

export interface GatewayResponse {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
  readonly origin: ResponseOrigin;
}
