/** Lambda's payload limits, which both directions meet: what comes in and what goes back. */

/**
 * A synchronous invocation carries at most 6 MB each way: the request event, and the function's
 * serialized answer. https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html
 */
export const LAMBDA_PAYLOAD_LIMIT_BYTES = 6 * 1024 * 1024;
