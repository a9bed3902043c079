/**
 * Where the API is: the Studio is served at `<prefix>/studio/` (the standalone server's
 * root, or an embedding app's mount), and the API at `<prefix>/`.
 */
export const apiBaseOf = (pageUrl: string): string => {
  const url = new URL(pageUrl)
  const cut = url.pathname.lastIndexOf("/studio/")
  const prefix = cut === -1 ? "" : url.pathname.slice(0, cut)
  return `${url.origin}${prefix}`
}
