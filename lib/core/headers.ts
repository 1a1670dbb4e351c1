/** Header helpers used by both directions: calls coming in, and answers coming back. */

/** Header names in lower case, as API Gateway and undici give them. */
export type HeaderMap = Readonly<Record<string, string | undefined>>;

/** The media type of a Content-Type value, without parameters, in lower case. */
export function mediaType(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}
