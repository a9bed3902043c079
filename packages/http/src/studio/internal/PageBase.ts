/** `html` with a `<base href>` first in its head, unless it has one of its own: where the page's relative URLs resolve from. */
export const withBase = (html: string, href: string): string => {
  if (/<base[\s>/]/i.test(html)) return html
  const head = /<head(?:\s[^>]*)?>/i.exec(html)
  if (head === null) return html
  const end = head.index + head[0].length
  return `${html.slice(0, end)}<base href="${href}">${html.slice(end)}`
}
