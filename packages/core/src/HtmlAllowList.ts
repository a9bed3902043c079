/**
 * What sanitized HTML may contain: tags, attributes per tag, utility classes and URL
 * schemes, each with the reason it is allowed, plus the elements dropped with their
 * content. It is data: extend it with {@link mergeAllowLists}, the way rehype-sanitize's
 * schema is extended, and pass the result to `HtmlSanitizer.layerWith`.
 *
 * @since 0.1.0
 */

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
}

const heading = "Section headings of a lesson."
const inline = "Inline emphasis authors and models use in course text."

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
    "text-left": "Text alignment.",
    "text-center": "Text alignment (named by the specification).",
    "text-right": "Text alignment.",
    "text-justify": "Text alignment.",
    "font-bold": "Bold weight (named by the specification).",
    "font-semibold": "Semi-bold weight.",
    "italic": "Italic style.",
    "underline": "Underlined text.",
    "text-sm": "Smaller text.",
    "text-lg": "Larger text.",
    "text-xl": "Larger text.",
    "text-2xl": "Larger text.",
    "text-gray-600": "Muted text.",
    "bg-gray-100": "Shaded boxes (tips, notes).",
    "border": "Boxed content.",
    "rounded": "Rounded boxes.",
    "p-4": "Padding inside boxes.",
    "my-4": "Vertical spacing.",
    "mt-4": "Space above.",
    "mb-4": "Space below.",
    "list-disc": "Bulleted list style.",
    "list-decimal": "Numbered list style.",
    "ml-6": "List indentation.",
    "w-full": "Full-width tables and images.",
    "table-auto": "Automatic table layout.",
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
  }
}

/** `base` extended by `extension`: entries are added; for the same name, the extension's reason wins. */
export const mergeAllowLists = (base: HtmlAllowList, extension: Partial<HtmlAllowList>): HtmlAllowList => {
  const attributes: Record<string, Readonly<Record<string, string>>> = { ...base.attributes }
  for (const [tag, extra] of Object.entries(extension.attributes ?? {})) {
    attributes[tag] = { ...attributes[tag], ...extra }
  }
  const protocols: Record<string, ReadonlyArray<string>> = { ...base.protocols }
  for (const [attribute, extra] of Object.entries(extension.protocols ?? {})) {
    protocols[attribute] = [...new Set([...(protocols[attribute] ?? []), ...extra])]
  }
  return {
    tags: { ...base.tags, ...extension.tags },
    attributes,
    classes: { ...base.classes, ...extension.classes },
    protocols,
    dropWithContent: [...new Set([...base.dropWithContent, ...(extension.dropWithContent ?? [])])],
    ancestors: { ...base.ancestors, ...extension.ancestors }
  }
}
