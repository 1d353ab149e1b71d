/**
 * URL normalisation for the existence check: lower-case scheme and host (the WHATWG parser does both), no
 * fragment, no trailing slash; the query is kept, since it can select different content.
 */
export const normalizeUrl = (input: string): string | null => {
  let url: URL
  try {
    url = new URL(input.trim())
  } catch {
    return null
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null
  const path = url.pathname.replace(/\/+$/, "")
  return `${url.protocol}//${url.host}${path}${url.search}`
}
