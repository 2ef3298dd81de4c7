/** The permanent public address of a named image: /api/img/{handle}/{name}, absolute. */
export const permalinkUrl = (publicBaseUrl: string, handle: string, name: string): string =>
  `${publicBaseUrl}/api/img/${encodeURIComponent(handle)}/${encodeURIComponent(name)}`;
