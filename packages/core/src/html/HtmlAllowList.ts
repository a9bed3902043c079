/**
 * What sanitized HTML may contain: tags, attributes per tag, utility classes, URL
 * schemes and video embed providers, each with the reason it is allowed, plus the
 * elements dropped with their content. It is data: extend it with {@link mergeAllowLists}, the way rehype-sanitize's
 * schema is extended, and pass the result to `HtmlSanitizer.layerWith`.
 *
 * @since 0.1.0
 */

/**
 * A video provider whose player an `iframe` may embed. An `iframe` survives only when its
 * `src` is an absolute `https://` URL (printable ASCII, no backslash) that the WHATWG URL
 * parser reads with no user name, password or port, a host that is exactly one of
 * `hosts` (or `rewriteHost`) and a path that `path` matches in whole, and the element
 * has no `srcdoc`. The sanitizer then writes the element afresh: `src` re-serialized from
 * the parsed URL (host rewritten, only the `query` parameters kept, no fragment), the
 * provider's `sandbox` and `allow`, `allowfullscreen` when `allow` names `fullscreen`,
 * `referrerpolicy="strict-origin-when-cross-origin"` and `loading="lazy"`; every other
 * attribute and all content go. Any other `iframe` is dropped with its content.
 */
export interface HtmlEmbedProvider {
  /** Why the provider is allowed (the docs table shows it). */
  readonly reason: string
  /**
   * Hosts an embed's `src` may name, as the URL parser writes them: lower case, an
   * internationalized name in punycode (`xn--…`), no trailing dot. A host written
   * otherwise is normalized when the sanitizer is built; one that is not a bare host
   * name (a port, a path, user info) is a defect then.
   */
  readonly hosts: ReadonlyArray<string>
  /**
   * The host written instead of the one in `src` (YouTube's privacy-enhanced
   * `www.youtube-nocookie.com`); it is accepted as input too, so the output sanitizes to
   * itself. Without it, the parsed host is kept.
   */
  readonly rewriteHost?: string | undefined
  /** What the URL's path (percent-encoded, dot segments resolved) must match, in whole. */
  readonly path: RegExp
  /**
   * Query parameters kept, each with what its whole value must match; the first of each
   * name is kept when it matches, every other parameter (tracking ones included) goes.
   */
  readonly query: Readonly<Record<string, RegExp>>
  /** The `sandbox` tokens the player needs (all other sandbox restrictions stay on). */
  readonly sandbox: ReadonlyArray<string>
  /** The permissions-policy features of `allow`, written `a; b; c`. */
  readonly allow: ReadonlyArray<string>
}

/** An allow-list. Every entry maps a name to the reason it is allowed. */
export interface HtmlAllowList {
  /** Tag names kept (their content is kept when a tag is not listed, unless dropped). */
  readonly tags: Readonly<Record<string, string>>
  /** Attributes kept, by tag name; `"*"` applies to every tag. */
  readonly attributes: Readonly<Record<string, Readonly<Record<string, string>>>>
  /** Values of `class` kept; other classes are removed. */
  readonly classes: Readonly<Record<string, string>>
  /** URL schemes allowed in URL attributes (relative URLs are always allowed). */
  readonly protocols: Readonly<Record<string, ReadonlyArray<string>>>
  /** Elements removed together with everything inside them. */
  readonly dropWithContent: ReadonlyArray<string>
  /**
   * Elements kept only inside one of the named ancestors; elsewhere they are unwrapped
   * (content kept). HTML parsers drop a stray `<tr>` or `<td>`, so keeping one would
   * make the output change when it is parsed again.
   */
  readonly ancestors: Readonly<Record<string, ReadonlyArray<string>>>
  /**
   * Video players an `iframe` may embed, by provider name (see {@link HtmlEmbedProvider}).
   * `iframe` is never kept any other way: listing it in `tags` has no effect.
   */
  readonly embeds: Readonly<Record<string, HtmlEmbedProvider>>
}

/**
 * What {@link mergeAllowLists} adds to an allow-list: any part of one, where an embed
 * provider set to `null` removes the provider of that name.
 */
export interface HtmlAllowListExtension extends Partial<Omit<HtmlAllowList, "embeds">> {
  readonly embeds?: Readonly<Record<string, HtmlEmbedProvider | null>> | undefined
}

const heading = "Section headings of a lesson."
/** Tailwind's spacing steps (0.25rem each) that course text uses. */
const spacingSteps: ReadonlyArray<number> = [0, 1, 2, 3, 4, 6, 8]
/** The utility classes `prefix-step` for `steps`, each with its size in its reason. */
const spacing = (prefix: string, why: string, steps: ReadonlyArray<number> = spacingSteps): Record<string, string> =>
  Object.fromEntries(steps.map((step) => [`${prefix}-${step}`, `${why} (${step * 0.25}rem).`]))
const inline = "Inline emphasis authors and models use in course text."

/**
 * What a video player needs in its sandbox: its scripts, its own origin (the players keep
 * their state in storage and refuse to play without it), and pop-ups that escape the
 * sandbox, so "Watch on YouTube" and the Vimeo logo open a working page. Forms, modals,
 * downloads and navigating this page stay forbidden.
 */
const playerSandbox: ReadonlyArray<string> = ["allow-scripts", "allow-same-origin", "allow-popups", "allow-popups-to-escape-sandbox"]
/** The permissions a player uses: protected streams, fullscreen and picture-in-picture (no autoplay, sensors or clipboard). */
const playerFeatures: ReadonlyArray<string> = ["encrypted-media", "fullscreen", "picture-in-picture"]

/** Coursekit's allow-list for course, lesson and generated HTML. */
export const defaultAllowList: HtmlAllowList = {
  tags: {
    h1: heading,
    h2: heading,
    h3: heading,
    h4: heading,
    h5: heading,
    h6: heading,
    p: "Paragraphs.",
    br: "Line breaks inside a paragraph.",
    hr: "A thematic break between sections.",
    b: `${inline} (named by the specification).`,
    strong: inline,
    i: inline,
    em: inline,
    u: inline,
    s: "Struck-through text (corrections, before/after).",
    mark: "Highlighted key terms.",
    small: "Side notes and fine print.",
    sub: "Subscripts (formulas).",
    sup: "Superscripts (formulas, footnote marks).",
    code: "Inline code and code blocks.",
    pre: "Preformatted code blocks.",
    kbd: "Keys to press in tutorials.",
    blockquote: "Quotations.",
    q: "Inline quotations.",
    cite: "Titles of cited works.",
    abbr: "Abbreviations with their expansion.",
    ul: "Bulleted lists (named by the specification).",
    ol: "Numbered lists and steps.",
    li: "List items.",
    dl: "Glossaries.",
    dt: "Glossary terms.",
    dd: "Glossary definitions.",
    table: "Tables (named by the specification).",
    caption: "Table captions.",
    thead: "Table header rows.",
    tbody: "Table bodies.",
    tfoot: "Table footers.",
    tr: "Table rows.",
    th: "Table header cells.",
    td: "Table cells.",
    details: "Collapsible sections such as solutions (named by the specification).",
    summary: "The visible label of a collapsible section.",
    a: "Links to further reading.",
    img: "Illustrations.",
    figure: "Illustrations with captions.",
    figcaption: "Captions of illustrations.",
    div: "Grouping for layout classes.",
    span: "Inline grouping for utility classes (a bare span is removed)."
  },
  attributes: {
    "*": { className: "Only the utility classes of the class list survive." },
    a: {
      href: "The link target (http, https, mailto or relative).",
      title: "A tooltip describing the target.",
      target: "Only _blank, to open in a new window; rel=noopener noreferrer is then added.",
      rel: "Only noopener, noreferrer, nofollow and ugc: link relations that protect readers."
    },
    img: {
      src: "The image address (http, https or relative).",
      alt: "The text alternative, needed for accessibility.",
      title: "A tooltip.",
      width: "Intrinsic width, to avoid layout shift.",
      height: "Intrinsic height, to avoid layout shift."
    },
    th: { colSpan: "Header cells spanning columns.", rowSpan: "Header cells spanning rows.", scope: "Row or column headers." },
    td: { colSpan: "Cells spanning columns.", rowSpan: "Cells spanning rows." },
    ol: { start: "Numbered lists that continue.", reversed: "Countdown lists." },
    details: { open: "A section shown expanded at first." },
    abbr: { title: "The expansion of the abbreviation." },
    blockquote: { cite: "The source of the quotation (http, https or relative)." },
    q: { cite: "The source of the quotation (http, https or relative)." }
  },
  classes: {
    // Alignment.
    "text-left": "Text alignment.",
    "text-center": "Text alignment (named by the specification).",
    "text-right": "Text alignment.",
    "text-justify": "Text alignment.",
    "text-start": "Text alignment at the start of the line (the right in right-to-left text).",
    "text-end": "Text alignment at the end of the line.",
    "align-top": "Vertical alignment in table cells.",
    "align-middle": "Vertical alignment in table cells.",
    "align-bottom": "Vertical alignment in table cells.",
    // Weight and style.
    "font-normal": "Regular weight (undoes a heading's bold).",
    "font-medium": "Medium weight.",
    "font-semibold": "Semi-bold weight.",
    "font-bold": "Bold weight (named by the specification).",
    "italic": "Italic style.",
    "underline": "Underlined text.",
    // Size.
    "text-xs": "Smaller text.",
    "text-sm": "Smaller text.",
    "text-base": "Body text size.",
    "text-lg": "Larger text.",
    "text-xl": "Larger text.",
    "text-2xl": "Larger text.",
    "text-3xl": "Larger text.",
    // Boxes.
    "text-gray-600": "Muted text.",
    "bg-gray-100": "Shaded boxes (tips, notes).",
    "border": "Boxed content.",
    "rounded": "Rounded boxes.",
    // Spacing, on Tailwind's scale up to 2rem.
    ...spacing("p", "Padding inside boxes"),
    ...spacing("px", "Horizontal padding inside boxes and cells"),
    ...spacing("py", "Vertical padding inside boxes and cells"),
    ...spacing("mt", "Space above"),
    ...spacing("mb", "Space below"),
    ...spacing("my", "Vertical spacing"),
    "mx-auto": "Centred blocks (figures, boxes).",
    ...spacing("ml", "List indentation", [4, 6, 8]),
    ...spacing("pl", "List indentation", [4, 6, 8]),
    ...spacing("space-y", "Space between the items of a list or the blocks of a box", [1, 2, 4]),
    // Leading (line height).
    "leading-none": "Line height for display text.",
    "leading-tight": "Line height for headings.",
    "leading-snug": "Line height for short text.",
    "leading-normal": "Line height for body text.",
    "leading-relaxed": "Line height for reading.",
    "leading-loose": "Line height for reading.",
    // Tracking (letter spacing).
    "tracking-tight": "Letter spacing for large headings.",
    "tracking-normal": "Letter spacing reset.",
    "tracking-wide": "Letter spacing for labels.",
    "tracking-wider": "Letter spacing for small capitals.",
    // Lists.
    "list-disc": "Bulleted list style.",
    "list-decimal": "Numbered list style.",
    "list-none": "Lists without markers.",
    "list-inside": "Markers inside the text block.",
    "list-outside": "Markers outside the text block.",
    // Tables.
    "w-full": "Full-width tables and images.",
    "table-auto": "Automatic table layout.",
    "table-fixed": "Fixed table layout (equal columns).",
    "border-collapse": "Table cells sharing borders.",
    "border-gray-300": "Light table and box borders.",
    "divide-y": "Lines between table rows.",
    "whitespace-nowrap": "Table cells that must not wrap (numbers, dates).",
    "overflow-x-auto": "Horizontal scrolling for wide tables and code."
  },
  protocols: {
    href: ["http", "https", "mailto"],
    src: ["http", "https"],
    cite: ["http", "https"]
  },
  dropWithContent: [
    "script",
    "style",
    "iframe",
    "frame",
    "frameset",
    "object",
    "embed",
    "applet",
    "form",
    "input",
    "button",
    "select",
    "textarea",
    "svg",
    "math",
    "xmp",
    "noscript",
    "noembed",
    "noframes",
    "template",
    "base",
    "meta",
    "link",
    "title",
    "plaintext"
  ],
  ancestors: {
    caption: ["table"],
    thead: ["table"],
    tbody: ["table"],
    tfoot: ["table"],
    tr: ["table"],
    th: ["table"],
    td: ["table"],
    summary: ["details"],
    figcaption: ["figure"]
  },
  embeds: {
    youtube: {
      reason: "YouTube videos, through its privacy-enhanced player (no cookies until the reader plays the video).",
      hosts: ["www.youtube.com", "youtube.com", "www.youtube-nocookie.com", "youtube-nocookie.com"],
      rewriteHost: "www.youtube-nocookie.com",
      path: /^\/embed\/[A-Za-z0-9_-]{1,64}$/,
      query: { start: /^[0-9]{1,6}$/, end: /^[0-9]{1,6}$/ },
      sandbox: playerSandbox,
      allow: playerFeatures
    },
    vimeo: {
      reason: "Vimeo videos, through its player.",
      hosts: ["player.vimeo.com"],
      path: /^\/video\/[0-9]{1,20}$/,
      // The hash that unlisted videos need.
      query: { h: /^[0-9A-Za-z]{1,32}$/ },
      sandbox: playerSandbox,
      allow: playerFeatures
    }
  }
}

/**
 * `base` extended by `extension`: entries are added; for the same name, the extension's
 * reason (or embed provider) wins; an embed provider set to `null` is removed.
 */
export const mergeAllowLists = (base: HtmlAllowList, extension: HtmlAllowListExtension): HtmlAllowList => {
  const attributes: Record<string, Readonly<Record<string, string>>> = { ...base.attributes }
  for (const [tag, extra] of Object.entries(extension.attributes ?? {})) {
    attributes[tag] = { ...attributes[tag], ...extra }
  }
  const protocols: Record<string, ReadonlyArray<string>> = { ...base.protocols }
  for (const [attribute, extra] of Object.entries(extension.protocols ?? {})) {
    protocols[attribute] = [...new Set([...(protocols[attribute] ?? []), ...extra])]
  }
  const embeds = new Map(Object.entries(base.embeds))
  for (const [name, provider] of Object.entries(extension.embeds ?? {})) {
    if (provider === null) embeds.delete(name)
    else embeds.set(name, provider)
  }
  return {
    tags: { ...base.tags, ...extension.tags },
    attributes,
    classes: { ...base.classes, ...extension.classes },
    protocols,
    dropWithContent: [...new Set([...base.dropWithContent, ...(extension.dropWithContent ?? [])])],
    ancestors: { ...base.ancestors, ...extension.ancestors },
    embeds: Object.fromEntries(embeds)
  }
}
