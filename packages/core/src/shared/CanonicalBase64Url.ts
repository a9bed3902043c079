/**
 * Cursors as opaque text: base64url in the one spelling encoding writes, so that one
 * page has one URL.
 *
 * @since 0.3.0
 */

/**
 * Whether `text` is base64url as encoding writes it: its alphabet, no padding, a length
 * a whole number of bytes gives, and zero in the bits of its last character that hold none.
 */
export const isCanonicalBase64Url = (text: string): boolean => {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return false
  const spare = text.length % 4 === 2 ? 4 : text.length % 4 === 3 ? 2 : 0
  if (spare === 0) return true
  const last = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".indexOf(text[text.length - 1]!)
  return (last & ((1 << spare) - 1)) === 0
}

